import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OrderService } from '../../domain/orders/order-service.js';
import type { PetCatalog } from '../../domain/pets/pet-catalog.js';
import type { RequestAdmission } from '../../domain/quota/request-admission.js';
import type { IdempotencyStore } from '../../ports/idempotency-store.js';
import type { Tracer } from '../../ports/tracer.js';
import { createAdmissionPipeline, type NextHandler } from './pipeline/request-pipeline.js';
import { createApiRouter } from './pipeline/api-router.js';
import type { RateLimitStatus } from './pipeline/rate-limit-status.js';
import { checkedBasePath, DEFAULT_BASE_PATH } from './contract/base-path.js';
import { clientAddressResolver, type TrustProxy } from './pipeline/client-address.js';
import { createCors, type CorsOrigins } from './pipeline/cors.js';
import type { LogError } from './wire/failures.js';
import { buildOpenApiDocument, SAME_ORIGIN, type ServerOrigin } from './contract/openapi-document.js';
import type { Operation } from './contract/operation.js';
import type { OnRequestFinished } from './wire/request-finished.js';
import { PET_STORE_OPERATIONS } from './operations/index.js';
import { DEFAULT_DEPRECATED_AT } from './contract/deprecation-date.js';

export interface RequestHandlerDependencies {
  readonly catalog: PetCatalog;
  readonly orders: OrderService;
  readonly idempotency: IdempotencyStore;
  readonly admission: RequestAdmission;
  /**
   * GET /rate_limit's reads: `new RateLimitStatus(keys, quotas, options)` with the admission's own
   * arguments (createPetStore builds it). Absent: that route is not served, nor in the document.
   */
  readonly rateLimitStatus?: RateLimitStatus | undefined;
  /**
   * Where each request's OpenTelemetry span goes (createPetStore sets it when PETSTORE_TRACES
   * says so, the stores above then traced too). Absent: no span is made.
   */
  readonly tracer?: Tracer | undefined;
}

export interface RequestHandlerOptions {
  /**
   * Where clients reach the operations: the path before `/pets` in the URLs they send, mount
   * path included (`app.use('/petstore', handler)` in express: `/petstore/v1`). The handler
   * routes on it, and every link it writes starts with it: Location, `Link` rel="next" and
   * rel="successor-version", the served document's servers. Empty or `/segment/...`, no
   * trailing slash. Default `/v1`. See request-target.ts for why it includes the mount path.
   */
  readonly basePath?: string;
  /**
   * The origins of the served document's `servers`, each followed by basePath. Default:
   * SAME_ORIGIN, one relative server (`/petstore/v1`) that resolves against wherever the
   * document was fetched from, as the host that mounts the handler is not known to it.
   */
  readonly serverOrigins?: readonly ServerOrigin[];
  /** When deprecated operations (getPet) were deprecated (RFC 9745 `Deprecation`). Default 2026-01-01. */
  readonly deprecatedAt?: Date;
  /**
   * Who may set the address anonymous callers are limited by (X-Forwarded-For). Default: nobody.
   * `{ kind: 'host' }`: the host app's own resolution, express's `req.ip` under its `trust proxy`.
   */
  readonly trustProxy?: TrustProxy;
  /** Browser origins allowed to call the API (CORS). Default: none, CORS off. */
  readonly corsOrigins?: CorsOrigins | undefined;
  /** Unexpected failures: logged here, answered 500 without internals. Default: console.error. */
  readonly logError?: LogError;
  /**
   * Told of each request when its connection is done with it (request id, route template,
   * status, duration, key digest prefix, plan, quota verdict): for access logs and metrics.
   * Default: none, and nothing is traced.
   */
  readonly onFinished?: OnRequestFinished | undefined;
  /** The operations served; the pet store's own by default. */
  readonly operations?: readonly Operation[];
}

/**
 * A node:http listener (express and fastify can hand it their raw request and response), and an
 * express middleware: given `next`, a request outside `basePath` goes to it (the host's own
 * routes and 404) instead of being answered 404 here.
 */
export type PetStoreRequestHandler = (req: IncomingMessage, res: ServerResponse, next?: NextHandler) => void;

const logToConsole: LogError = (message, error, requestId) =>
  requestId === undefined ? console.error(message, error) : console.error(`${message} (request ${requestId})`, error);

/**
 * The API as one `(req, res[, next])` listener: routing, authentication, quotas and the operations.
 * It answers every request under its base path (404 for a path it does not serve) and, given
 * `next`, passes any other to it; without `next` it answers every request. It owns no
 * socket: timeouts, parser errors and `Expect` are the server's (createHttpServer, or the
 * host framework's). Everything is derived here, once: the routes, the deprecation headers,
 * the serialised document; a request only reads them.
 */
export function createRequestHandler(deps: RequestHandlerDependencies, options: RequestHandlerOptions = {}): PetStoreRequestHandler {
  const basePath = checkedBasePath(options.basePath ?? DEFAULT_BASE_PATH);
  const deprecatedAt = options.deprecatedAt ?? DEFAULT_DEPRECATED_AT;
  const served: readonly Operation[] = options.operations ?? PET_STORE_OPERATIONS;
  const operations = served.filter((operation) => operation.quotaStatus !== true || deps.rateLimitStatus !== undefined);
  const router = createApiRouter(operations, { deprecatedAt, basePath });
  const openApiJson = JSON.stringify(buildOpenApiDocument(operations, { deprecatedAt, basePath, origins: options.serverOrigins ?? SAME_ORIGIN }));
  return createAdmissionPipeline(
    {
      router,
      admission: deps.admission,
      rateLimitStatus: deps.rateLimitStatus,
      services: { catalog: deps.catalog, orders: deps.orders, idempotency: deps.idempotency, openApiJson, basePath },
    },
    {
      clientAddress: clientAddressResolver(options.trustProxy ?? { kind: 'none' }),
      cors: options.corsOrigins === undefined ? undefined : createCors(options.corsOrigins),
      logError: options.logError ?? logToConsole,
      onFinished: options.onFinished,
      tracer: deps.tracer,
    },
  );
}
