import { createServer, type IncomingMessage, type Server } from 'node:http';
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import type { DomainError } from '../../domain/errors.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { PetCatalog, PetPage } from '../../domain/pets/pet-catalog.js';
import type { Admission, RequestAdmission } from '../../domain/quota/request-admission.js';
import { digestApiKey } from '../api-key-digest.js';
import { ApiResponse } from './api-response.js';
import { bearerToken } from './bearer-token.js';
import { deprecationHeaders } from './deprecation-headers.js';
import { isJsonContentType, readJsonBody } from './json-body.js';
import { openApiDocument } from './openapi-document.js';
import { serializePet, serializePets } from './pet-json.js';
import { writeRateLimitHeaders } from './rate-limit-headers.js';

export const BASE_PATH = '/v1';

// Fixed headers as header lists, built once.
const RETRY_SOON = ['retry-after', '1'];
const CLOSE = ['connection', 'close'];
const CHALLENGE = ['www-authenticate', 'Bearer'];

export interface HttpServerOptions {
  /** When getPet was deprecated (RFC 9745 `Deprecation`). */
  readonly deprecatedAt: Date;
  readonly sunsetAt: Date;
  /** Slow clients cannot hold a connection: headers must arrive within this, the whole request within requestTimeoutMs. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Unexpected failures: logged here, answered 500 without internals. */
  readonly logError: (message: string, error: unknown) => void;
}

export interface HttpServerDependencies {
  readonly catalog: PetCatalog;
  readonly admission: RequestAdmission;
}

type Request = IncomingMessage;
type Handler = (req: Request, res: ApiResponse, params: Record<string, string | undefined>, searchParams: Record<string, unknown>) => Promise<void> | void;

interface Route {
  readonly handler: Handler;
  /** openapi.json is readable without a key; every pet operation requires one. */
  readonly public: boolean;
  /** Query parameters the operation understands; any other is a 400 rather than silently ignored. */
  readonly query: readonly string[];
  /** Headers of every answer of this route, errors included (getPet's deprecation), as a header list. */
  readonly headers?: readonly string[];
}

const ROUTED_METHODS = ['GET', 'POST'] as const;

export type PetStoreHttpServer = Server<typeof IncomingMessage, typeof ApiResponse>;

export function createHttpServer(deps: HttpServerDependencies, options: HttpServerOptions): PetStoreHttpServer {
  const { catalog, admission } = deps;
  const getPetHeaders = deprecationHeaders(options.deprecatedAt, options.sunsetAt, `${BASE_PATH}/pets`);
  const openApiJson = JSON.stringify(openApiDocument);

  const fail = (res: ApiResponse, error: unknown): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof StoreUnavailableError) {
      res.sendError('service_unavailable', undefined, RETRY_SOON);
      return;
    }
    options.logError('request failed', error);
    res.sendError('internal_error');
  };

  const sendDomainError = (res: ApiResponse, error: DomainError): void => {
    res.sendError(error.code, error.message);
  };

  const listPets: Handler = async (_req, res, _params, query) => {
    const page = await catalog.list({ limit: query['limit'], status: query['status'], cursor: query['cursor'] });
    if (!page.ok) return sendDomainError(res, page.error);
    const next = page.value.next;
    res.sendJson(200, serializePets(page.value.pets), next === undefined ? undefined : ['link', nextLink(next)]);
  };

  const createPet: Handler = async (req, res) => {
    if (!isJsonContentType(req.headers['content-type'])) return res.sendError('unsupported_media_type');
    const body = await readJsonBody(req);
    if (!body.ok) return res.sendError(body.code, body.message, body.code === 'payload_too_large' ? CLOSE : undefined);
    const created = await catalog.create(body.value);
    if (!created.ok) return sendDomainError(res, created.error);
    res.sendJson(201, serializePet(created.value), ['location', `${BASE_PATH}/pets/${created.value.id}`]);
  };

  const getPet: Handler = async (_req, res, params) => {
    const pet = await catalog.get(params['petId']);
    if (!pet.ok) return sendDomainError(res, pet.error);
    res.sendJson(200, serializePet(pet.value));
  };

  const serveOpenApi: Handler = (_req, res) => res.sendJson(200, openApiJson);

  const router = FindMyWay<HTTPVersion.V1>({
    ignoreTrailingSlash: false,
    maxParamLength: 64,
    defaultRoute: (req, res) => {
      const allowed = allowedMethods(req.url ?? '/');
      const response = res as ApiResponse;
      if (allowed.length === 0) return response.sendError('not_found', `No resource at ${pathOf(req.url)}.`);
      response.sendError('method_not_allowed', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`, [
        'allow',
        allowed.join(', '),
      ]);
    },
    onBadUrl: (_path, _req, res) => (res as ApiResponse).sendError('invalid_request', 'The URL is malformed.'),
  });

  const allowedMethods = (url: string): string[] => {
    const path = pathOf(url);
    return ROUTED_METHODS.filter((method) => router.find(method, path) !== null);
  };

  const on = (method: (typeof ROUTED_METHODS)[number], path: string, route: Route): void => {
    router.on(method, `${BASE_PATH}${path}`, dispatch, route);
  };

  // One dispatcher for every route: authentication and query checking happen once, here.
  function dispatch(
    this: Admission,
    req: Request,
    res: unknown,
    params: Record<string, string | undefined>,
    route: Route,
    searchParams: Record<string, unknown>,
  ): void {
    const response = res as ApiResponse;
    if (route.headers !== undefined) response.headerList.push(...route.headers);
    if (!route.public && this.plan === undefined) return response.sendError('unauthorized', undefined, CHALLENGE);
    for (const name in searchParams) {
      if (!route.query.includes(name)) {
        return response.sendError('invalid_request', `Unknown query parameter: ${name}.`);
      }
    }
    const done = route.handler(req, response, params, searchParams);
    if (done instanceof Promise) done.catch((error: unknown) => fail(response, error));
  }

  on('GET', '/pets', { handler: listPets, public: false, query: ['limit', 'status', 'cursor'] });
  on('POST', '/pets', { handler: createPet, public: false, query: [] });
  on('GET', '/pets/:petId', { handler: getPet, public: false, query: [], headers: getPetHeaders });
  on('GET', '/openapi.json', { handler: serveOpenApi, public: true, query: [] });

  const route = (req: Request, res: ApiResponse, admitted: Admission): void => {
    writeRateLimitHeaders(res.headerList, admitted.policy, admitted.decision);
    const verdict = admitted.decision.verdict;
    if (verdict === 'rate_limited') return res.sendError('rate_limited');
    if (verdict === 'banned') return res.sendError('api_key_banned');
    router.lookup(req, res, admitted);
  };

  const server = createServer(
    {
      ServerResponse: ApiResponse,
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      // Node checks the two timeouts above on this interval; its 30 s default would let them overrun.
      connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs),
    },
    (req, res) => {
      try {
        const token = bearerToken(req.headers.authorization);
        const admitted = admission.admit(token === undefined ? undefined : digestApiKey(token), req.socket.remoteAddress ?? 'unknown');
        if (admitted instanceof Promise) {
          admitted.then((decided) => route(req, res, decided)).catch((error: unknown) => fail(res, error));
        } else {
          route(req, res, admitted);
        }
      } catch (error) {
        fail(res, error);
      }
    },
  );
  return server;
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function nextLink(next: NonNullable<PetPage['next']>): string {
  const status = next.status === undefined ? '' : `&status=${next.status}`;
  return `<${BASE_PATH}/pets?limit=${next.limit}${status}&cursor=${encodeURIComponent(next.cursor)}>; rel="next"`;
}

