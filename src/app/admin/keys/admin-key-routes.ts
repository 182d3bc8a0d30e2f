import { createHash, timingSafeEqual } from 'node:crypto';
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import { credentialHeadersProblem } from '../../../adapters/http/pipeline/credential-headers.js';
import { readJsonRequest } from '../../../adapters/http/wire/json-request.js';
import { hasBody, sendError, sendJson, type RequestContext } from '../../../adapters/http/wire/request-context.js';
import { StoreUnavailableError } from '../../../domain/errors.js';
import type { Clock } from '../../../ports/clock.js';
import { isKeyId, type KeyOperations } from '../../keys/key-operations.js';
import { ADMIN_KEY_OPERATIONS, type AdminAnswer, type AdminOperation } from './admin-key-operations.js';
import { adminOpenApiDocument } from './admin-openapi.js';

export interface AdminKeyApiOptions {
  /** PETSTORE_ADMIN_TOKEN. */
  readonly token: string;
  readonly keys: KeyOperations;
  readonly clock: Clock;
}

/** Answers a request of the admin listener if its path is the key API's; false: not its path. */
export type AdminKeyApi = (ctx: RequestContext, method: string, path: string) => false | Promise<void>;

const NO_STORE = ['cache-control', 'no-store'];
const CHALLENGE = ['www-authenticate', 'Bearer realm="petstore-admin"', ...NO_STORE];
export const ADMIN_OPENAPI_PATH = '/openapi.json';
const KEYS_PREFIX = '/keys';

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether the request carries the token; digests of equal length compared in constant time, so timing tells nothing of the token. */
function bearerMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return timingSafeEqual(sha256(match?.[1] ?? ''), expected) && match !== null;
}

const toRouterPath = (template: string): string => template.replace(/\{([^}]+)\}/g, ':$1');

/**
 * The key verbs over HTTP, on the admin listener: routed by find-my-way from the declared
 * table, every route behind the admin token (checked before any body is read), the document
 * of the table at /openapi.json.
 */
export function createAdminKeyApi({ token, keys, clock }: AdminKeyApiOptions): AdminKeyApi {
  const expected = sha256(token);
  const router = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: false });
  const methods = new Set<string>();
  for (const operation of ADMIN_KEY_OPERATIONS) {
    router.on(operation.method, toRouterPath(operation.path), () => {}, operation);
    methods.add(operation.method);
  }
  const documentJson = JSON.stringify(adminOpenApiDocument(ADMIN_KEY_OPERATIONS));

  const send = (ctx: RequestContext, answer: AdminAnswer): void =>
    'error' in answer ? sendError(ctx, answer.error, answer.message, NO_STORE) : sendJson(ctx, answer.status, JSON.stringify(answer.body), NO_STORE);

  const run = async (ctx: RequestContext, operation: AdminOperation, id: string): Promise<void> => {
    let body: unknown = {};
    if (operation.body !== undefined && !(operation.body.optional === true && !hasBody(ctx.req))) {
      const request = await readJsonRequest(ctx);
      if (request === undefined) return;
      body = request.value;
    }
    try {
      send(ctx, await operation.answer({ id, body, now: clock.now() }, keys));
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      sendError(ctx, 'service_unavailable', `${error.message}: nothing was changed, or the change is not known; read the key before trying again.`, NO_STORE);
    }
  };

  return (ctx, method, path) => {
    if (path === ADMIN_OPENAPI_PATH) {
      if (method !== 'GET' && method !== 'HEAD') return Promise.resolve(sendError(ctx, 'method_not_allowed', undefined, ['allow', 'GET, HEAD']));
      return Promise.resolve(sendJson(ctx, 200, documentJson, NO_STORE));
    }
    if (path !== KEYS_PREFIX && !path.startsWith(`${KEYS_PREFIX}/`)) return false;
    // As on the API: of repeated Authorization headers Node keeps one, and which token was meant cannot be known.
    const headersProblem = credentialHeadersProblem(ctx.req);
    if (headersProblem !== undefined) return Promise.resolve(sendError(ctx, 'invalid_request', headersProblem, NO_STORE));
    if (!bearerMatches(ctx.req.headers.authorization, expected)) return Promise.resolve(sendError(ctx, 'unauthorized', 'The admin token is required: Authorization: Bearer <PETSTORE_ADMIN_TOKEN>.', CHALLENGE));
    // HEAD wherever GET is served, as on the rest of this listener and on the API: Node sends the GET's headers without its body.
    const found = router.find((method === 'HEAD' ? 'GET' : method) as 'GET', path);
    if (found === null) {
      const allowed = [...methods].filter((other) => router.find(other as 'GET', path) !== null).flatMap((other) => (other === 'GET' ? ['GET', 'HEAD'] : [other]));
      return Promise.resolve(allowed.length === 0 ? sendError(ctx, 'not_found', undefined, NO_STORE) : sendError(ctx, 'method_not_allowed', undefined, ['allow', allowed.join(', '), ...NO_STORE]));
    }
    const id = found.params['id'];
    // `/keys/`, `/keys/%00` name no key: a 404 without asking a store (PostgreSQL refuses a NUL in text).
    if (id !== undefined && !isKeyId(id)) return Promise.resolve(sendError(ctx, 'not_found', undefined, NO_STORE));
    return run(ctx, found.store as AdminOperation, id ?? '');
  };
}
