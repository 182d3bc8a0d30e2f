import { errorResponse, HEADER_COMPONENTS, ref, SHARED_RESPONSES } from '../contract/openapi-components.js';
import { LICENSE, openApiDocument, type DocumentFrame, type OpenApiDocument } from '../contract/openapi-document.js';
import { ADMIN_API_OPERATIONS, ADMIN_TAGS, type AdminTagName } from './admin-key-operations.js';
import { ADMIN_NAMED_SCHEMAS } from './admin-key-schemas.js';

/** Every answer of the admin API: what it says of a key is never to be kept. */
const ANSWER_HEADERS = { 'Cache-Control': ref('headers/Cache-Control') };

/** The error answers every key operation may give; nothing here is rate limited, so no 429. */
const ADMIN_RESPONSES = {
  BadRequest: errorResponse(
    'Repeated Authorization or Host headers, or a body that is not the declared JSON object, or a field out of range; the message names it.',
    ['invalid_request'],
    ANSWER_HEADERS,
  ),
  Unauthorized: errorResponse('The admin token is missing or wrong.', ['unauthorized'], { ...ANSWER_HEADERS, 'WWW-Authenticate': ref('headers/WWW-Authenticate') }),
  PayloadTooLarge: errorResponse(SHARED_RESPONSES.PayloadTooLarge.description, ['payload_too_large'], ANSWER_HEADERS),
  UnsupportedMediaType: errorResponse(SHARED_RESPONSES.UnsupportedMediaType.description, ['unsupported_media_type'], {
    ...ANSWER_HEADERS,
    'Accept-Encoding': ref('headers/Accept-Encoding'),
  }),
  RequestTimeout: SHARED_RESPONSES.RequestTimeout,
  HeadersTooLarge: SHARED_RESPONSES.HeadersTooLarge,
  InternalError: errorResponse(SHARED_RESPONSES.InternalError.description, ['internal_error'], ANSWER_HEADERS),
  ServiceUnavailable: errorResponse('The store of the keys or of the quotas did not answer.', ['service_unavailable'], ANSWER_HEADERS),
};

/** The admin API's document frame; `tokenRule`: what PETSTORE_ADMIN_TOKEN must be, as its security scheme states it. */
const adminFrame = (tokenRule: string): DocumentFrame<AdminTagName> => ({
  info: {
    title: 'Pet store admin API',
    version: '1.0.0',
    description:
      'Keys managed while the service runs, on the admin listener (PETSTORE_ADMIN_PORT), the same verbs as `petstore keys`. ' +
      'Served only when PETSTORE_ADMIN_TOKEN is set; without it these paths answer 404. Every answer is `Cache-Control: no-store`.',
    license: { name: LICENSE, identifier: LICENSE },
  },
  servers: [{ url: '/', description: 'The admin listener this document was served from' }],
  bearer: { name: 'adminToken', description: `${tokenRule} as a bearer token.` },
  tags: ADMIN_TAGS,
  schemas: ADMIN_NAMED_SCHEMAS,
  headers: {
    'Cache-Control': { description: '`no-store`.', required: true, schema: { type: 'string', const: 'no-store' } },
    'WWW-Authenticate': HEADER_COMPONENTS['WWW-Authenticate'],
    'Accept-Encoding': HEADER_COMPONENTS['Accept-Encoding'],
    NextLink: HEADER_COMPONENTS['NextLink'],
  },
  responses: ADMIN_RESPONSES,
  answerHeaders: ANSWER_HEADERS,
});

/** The admin API's OpenAPI document, by the public API's builder from the same table as its router. */
export const adminOpenApiDocument = (tokenRule: string): OpenApiDocument => openApiDocument(ADMIN_API_OPERATIONS, adminFrame(tokenRule));
