/** `petstore-service/http`: the HTTP transport over node:http, as a request handler to mount or a whole server. */
export {
  createRequestHandler,
  type PetStoreRequestHandler,
  type RequestHandlerDependencies,
  type RequestHandlerOptions,
} from './adapters/http/request-handler.js';
export { DEFAULT_DEPRECATED_AT } from './adapters/http/contract/deprecation-date.js';
export { RateLimitStatus } from './adapters/http/pipeline/rate-limit-status.js';
export { createHttpServer, type HttpServerDependencies, type HttpServerOptions, type PetStoreHttpServer } from './adapters/http/http-server.js';
export type { OnRequestFinished, RequestFinishedEvent } from './adapters/http/wire/request-finished.js';
export { PET_STORE_OPERATIONS } from './adapters/http/operations/index.js';
export { buildOpenApiDocument, PET_STORE_ORIGINS, SAME_ORIGIN, STANDALONE_ORIGINS, type OpenApiDocument, type ServerOrigin } from './adapters/http/contract/openapi-document.js';
export type { Operation, OperationServices } from './adapters/http/contract/operation.js';
export { rateLimitHook, rateLimitMiddleware, type RateLimitMiddlewareOptions, type Refusal } from './adapters/http/limiter/rate-limit-middleware.js';
