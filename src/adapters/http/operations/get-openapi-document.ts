import Type from 'typebox';
import type { Operation, OperationServices } from '../contract/operation.js';
import { NOT_MODIFIED, STATIC_FILE_BODY_HEADERS } from '../docs/static-file-responses.js';
import { prepareStaticFile, preparedPer, sendStaticFile } from '../docs/static-file.js';
import { PET_STORE_ROUTE_OF } from '../contract/pet-store-routes.js';

/** Each handler's document as a file: compressed once, revalidated by its ETag (the docs page fetches it on every load). */
const documentOf = preparedPer((services: OperationServices) => prepareStaticFile(Buffer.from(services.openApiJson), 'application/json; charset=utf-8'));

export const getOpenApiDocument = {
  ...PET_STORE_ROUTE_OF.getOpenApiDocument,
  auth: 'public',
  summary: 'This document',
  description: 'Readable without an API key; limited per client address like any request. Compressed (`br` or `gzip`) for a client that accepts it.',
  responses: {
    200: {
      description: 'The OpenAPI document of this API.',
      body: Type.Object({ openapi: Type.Literal('3.1.0'), info: Type.Object({}), paths: Type.Object({}) }),
      headers: STATIC_FILE_BODY_HEADERS,
    },
    304: NOT_MODIFIED,
  },
  handler: async (ctx, services) => sendStaticFile(ctx, await documentOf(services)),
} as const satisfies Operation;
