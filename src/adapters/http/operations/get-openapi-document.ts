import Type from 'typebox';
import type { Operation } from '../contract/operation.js';
import { sendJson } from '../wire/request-context.js';

export const getOpenApiDocument = {
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: '/openapi.json',
  auth: 'public',
  summary: 'This document',
  description: 'Readable without an API key; limited per client address like any request.',
  responses: {
    200: {
      description: 'The OpenAPI document of this API.',
      body: Type.Object({ openapi: Type.Literal('3.1.0'), info: Type.Object({}), paths: Type.Object({}) }),
    },
  },
  handler: (ctx, { openApiJson }) => sendJson(ctx, 200, openApiJson),
} as const satisfies Operation;
