import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { OrderService } from '../../domain/orders/order-service.js';
import type { PetCatalog } from '../../domain/pets/pet-catalog.js';
import type { RequestAdmission } from '../../domain/quota/request-admission.js';
import type { IdempotencyStore } from '../../ports/idempotency-store.js';
import { createAdmissionPipeline } from './admission-pipeline.js';
import { createApiRouter } from './api-router.js';
import { answerClientError } from './client-error.js';
import { clientAddressResolver, type TrustProxy } from './client-address.js';
import { createCors, type CorsOrigins } from './cors.js';
import type { LogError } from './failures.js';
import { buildOpenApiDocument } from './openapi-document.js';
import type { Operation } from './operation.js';
import { createRequestContext, sendError } from './request-context.js';
import { PET_STORE_OPERATIONS } from './operations/index.js';

export interface HttpServerOptions {
  /** When deprecated operations (getPet) were deprecated (RFC 9745 `Deprecation`). */
  readonly deprecatedAt: Date;
  /** Slow clients cannot hold a connection: headers must arrive within this, the whole request within requestTimeoutMs. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Who may set the address anonymous callers are limited by (X-Forwarded-For). Default: nobody. */
  readonly trustProxy?: TrustProxy;
  /** Browser origins allowed to call the API (CORS). Default: none, CORS off. */
  readonly corsOrigins?: CorsOrigins | undefined;
  /** Unexpected failures: logged here, answered 500 without internals. */
  readonly logError: LogError;
  /** The operations served; the pet store's own by default. */
  readonly operations?: readonly Operation[];
}

export interface HttpServerDependencies {
  readonly catalog: PetCatalog;
  readonly orders: OrderService;
  readonly idempotency: IdempotencyStore;
  readonly admission: RequestAdmission;
}

export type PetStoreHttpServer = Server<typeof IncomingMessage, typeof ServerResponse>;

/** The standalone node:http server: timeouts, parser errors, and the admission pipeline over the declared operations. */
export function createHttpServer(deps: HttpServerDependencies, options: HttpServerOptions): PetStoreHttpServer {
  const operations = options.operations ?? PET_STORE_OPERATIONS;
  const router = createApiRouter(operations, { deprecatedAt: options.deprecatedAt });
  const openApiJson = JSON.stringify(buildOpenApiDocument(operations, { deprecatedAt: options.deprecatedAt }));
  const listener = createAdmissionPipeline(
    {
      router,
      admission: deps.admission,
      services: { catalog: deps.catalog, orders: deps.orders, idempotency: deps.idempotency, openApiJson },
    },
    {
      clientAddress: clientAddressResolver(options.trustProxy ?? { kind: 'none' }),
      cors: options.corsOrigins === undefined ? undefined : createCors(options.corsOrigins),
      logError: options.logError,
    },
  );
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      // Node checks the two timeouts above on this interval; its 30 s default would let them overrun.
      connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs),
      // A request without Host is refused by the pipeline, in the Error format, instead of by Node with an empty 400.
      requireHostHeader: false,
    },
    listener,
  );
  server.on('clientError', answerClientError);
  // Any Expect but 100-continue: Node would answer 417 with an empty body.
  server.on('checkExpectation', (req, res) => sendError(createRequestContext(req, res), 'expectation_failed'));
  return server;
}
