/** `petstore-service/http`: the HTTP transport over node:http, as a server or a request handler to mount. */
export { createHttpServer, type HttpServerDependencies, type HttpServerOptions, type PetStoreHttpServer } from './adapters/http/http-server.js';
export { PET_STORE_OPERATIONS } from './adapters/http/operations/index.js';
export { buildOpenApiDocument, type OpenApiDocument } from './adapters/http/openapi-document.js';
export type { Operation, OperationServices } from './adapters/http/operation.js';
