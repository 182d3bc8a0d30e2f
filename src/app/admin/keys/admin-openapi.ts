import { schemaReferences } from '../../../adapters/http/contract/schema-references.js';
import type { TSchema } from 'typebox';
import { errorContent } from '../../../adapters/http/contract/openapi-components.js';
import { LICENSE } from '../../../adapters/http/contract/openapi-document.js';
import { isErrorResponse } from '../../../adapters/http/contract/operation-declaration.js';
import { MAX_BODY_BYTES } from '../../../adapters/http/wire/request-limits.js';
import type { HttpErrorCode } from '../../../adapters/http/wire/http-errors.js';
import type { AdminOperation } from './admin-key-operations.js';
import { ADMIN_NAMED_SCHEMAS, ADMIN_TOKEN_DESCRIPTION } from './admin-key-schemas.js';

type Json = Readonly<Record<string, unknown>>;

const documentSchema = schemaReferences(ADMIN_NAMED_SCHEMAS);

const jsonContent = (schema: TSchema): Json => ({ 'application/json': { schema: documentSchema(schema) } });

const errorAnswer = (description: string, codes: readonly [HttpErrorCode, ...HttpErrorCode[]]): Json => ({ description, content: errorContent(codes) });

/** The answers every key route may give besides its own. */
function sharedErrors(operation: AdminOperation): Record<number, Json> {
  return {
    400: errorAnswer(
      `Repeated Authorization or Host headers${operation.body === undefined ? '' : ", or a body that is not the declared JSON object, or a field out of range; the message names it"}.`,
      ['invalid_request'],
    ),
    401: {
      description: 'The admin token is missing or wrong.',
      headers: { 'WWW-Authenticate': { description: 'Bearer, with the realm of the admin listener.', schema: { type: 'string' } } },
      content: errorContent(['unauthorized']),
    },
    ...(operation.body === undefined
      ? {}
      : {
          413: errorAnswer(`The body is larger than ${MAX_BODY_BYTES} bytes.`, ['payload_too_large']),
          415: errorAnswer('The body is not sent as `application/json`, or is sent with a Content-Encoding.', ['unsupported_media_type']),
        }),
    500: errorAnswer('An unexpected failure; no internals are disclosed.', ['internal_error']),
    503: errorAnswer('The store of the keys or of the quotas did not answer.', ['service_unavailable']),
  };
}

function operationObject(operation: AdminOperation): Json {
  const responses: Record<number, Json> = sharedErrors(operation);
  for (const [status, response] of Object.entries(operation.responses)) {
    responses[Number(status)] = isErrorResponse(response)
      ? errorAnswer(response.description, response.errors)
      : { description: response.description, headers: { 'Cache-Control': { description: '`no-store`.', schema: { type: 'string' } } }, content: jsonContent(response.body) };
  }
  const ids = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  return {
    operationId: operation.operationId,
    tags: ['Keys'],
    summary: operation.summary,
    ...(operation.description === undefined ? {} : { description: operation.description }),
    ...(ids.length === 0
      ? {}
      : { parameters: ids.map((name) => ({ name, in: 'path', required: true, description: 'The key id (`key_` and 16 hex digits).', schema: { type: 'string' } })) }),
    ...(operation.body === undefined
      ? {}
      : {
          requestBody: {
            required: operation.body.optional !== true,
            description: operation.body.description,
            content: jsonContent(operation.body.schema),
          },
        }),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
}

/** The admin API's OpenAPI document, derived from the same table as its router. */
export function adminOpenApiDocument(operations: readonly AdminOperation[]): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of operations) (paths[operation.path] ??= {})[operation.method.toLowerCase()] = operationObject(operation);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet store admin API',
      version: '1.0.0',
      description:
        'Keys managed while the service runs, on the admin listener (PETSTORE_ADMIN_PORT), the same verbs as `petstore keys`. ' +
        'Served only when PETSTORE_ADMIN_TOKEN is set; without it these paths answer 404. Every answer is `Cache-Control: no-store`.',
      license: { name: LICENSE, identifier: LICENSE },
    },
    servers: [{ url: '/', description: 'The admin listener this document was served from' }],
    security: [{ adminToken: [] }],
    tags: [{ name: 'Keys', description: 'Create, change, read, unban, roll and revoke API keys.' }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(ADMIN_NAMED_SCHEMAS).map(([name, schema]) => [name, documentSchema(schema, true)])),
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: ADMIN_TOKEN_DESCRIPTION } },
    },
  };
}
