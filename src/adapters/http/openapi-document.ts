/**
 * The OpenAPI 3.1 description of the API as built, served at GET /v1/openapi.json.
 * The HTTP tests validate every response they receive against it, so it cannot drift from the server.
 */

import { HTTP_ERRORS, type HttpErrorCode } from './http-errors.js';

const ref = <Name extends string>(name: Name) => ({ $ref: `#/components/${name}` }) as const;

// The document's codes are the server's own table, so the two cannot disagree.
const ERROR_CODES = Object.keys(HTTP_ERRORS) as HttpErrorCode[];

/** An Error body narrowed to the codes one status answers with, so `status` must equal the HTTP status. */
const errorContent = (status: number, codes: readonly [HttpErrorCode, ...HttpErrorCode[]]) =>
  ({
    'application/json': {
      schema: {
        allOf: [
          ref('schemas/Error'),
          { type: 'object', properties: { code: { enum: codes }, status: { const: status } } },
        ],
      },
    },
  }) as const;

const rateLimitHeaders = {
  'X-RateLimit-Limit': ref('headers/X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers/X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers/X-RateLimit-Reset'),
  'RateLimit-Policy': ref('headers/RateLimit-Policy'),
  RateLimit: ref('headers/RateLimit'),
} as const;

const deprecationHeaders = {
  ...rateLimitHeaders,
  Deprecation: ref('headers/Deprecation'),
  Sunset: ref('headers/Sunset'),
  Link: ref('headers/SuccessorLink'),
} as const;

const headerComponents = {
  'X-RateLimit-Limit': {
    description: 'The limit of the binding rule (the one with the fewest requests remaining; on a tie the shorter window).',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests the binding rule still admits in its current rolling window, after this one.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description:
      "Unix time in whole seconds, rounded up, at which the binding rule's remaining next goes up (the current time when it counts nothing).",
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Policy': {
    description:
      'Every rule applied to the caller (draft-ietf-httpapi-ratelimit-headers-11): `"minute";q=60;w=60, "day";q=1000;w=86400` for a Free key; callers without a valid key have the single rule `"minute";q=60;w=60`, counted per client address.',
    required: true,
    schema: { type: 'string', pattern: '^"minute";q=[0-9]+;w=60(, "day";q=[0-9]+;w=86400)?$' },
  },
  RateLimit: {
    description: 'Remaining requests (`r`) and seconds until they next go up (`t`) for every rule of RateLimit-Policy.',
    required: true,
    schema: { type: 'string', pattern: '^"minute";r=[0-9]+;t=[0-9]+(, "day";r=[0-9]+;t=[0-9]+)?$' },
  },
  'Retry-After': {
    description:
      'Whole seconds, at least 1, after which a request is admitted again if nothing else spends the quota. Clients should back off exponentially when refused again.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme to use.',
    required: true,
    schema: { type: 'string', pattern: '^Bearer( |$)' },
  },
  Allow: {
    description: 'The methods the resource answers, e.g. `GET, POST`.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' },
  },
  Deprecation: {
    description: 'RFC 9745: when getPet was deprecated, as a structured date (`@1767225600`: 1 January 2026).',
    required: true,
    schema: { type: 'string', pattern: '^@[0-9]+$' },
  },
  Sunset: {
    description: 'RFC 8594: when getPet is removed (`Thu, 05 Dec 2030 00:00:00 GMT`).',
    required: true,
    schema: { type: 'string' },
  },
  SuccessorLink: {
    description: 'RFC 8288: the replacement of getPet, `</v1/pets>; rel="successor-version"`.',
    required: true,
    schema: { type: 'string', pattern: 'rel="successor-version"' },
  },
  NextLink: {
    description:
      'RFC 8288: the next page, `<...>; rel="next"`, keeping `limit` and `status`. Absent on the last page; a page reached through it is never empty.',
    required: false,
    schema: { type: 'string', pattern: '^<[^>]+>; rel="next"$' },
  },
  Location: {
    description: 'The created animal: `/v1/pets/{id}`.',
    required: true,
    schema: { type: 'string', pattern: '^/v1/pets/[1-9][0-9]*$' },
  },
} as const;

const optional = <Header extends { readonly required: boolean }>(header: Header) => ({ ...header, required: false }) as const;

/** When the quota store itself failed, no decision exists: the rate-limit fields may be absent. */
const optionalRateLimitHeaders = {
  'X-RateLimit-Limit': optional(headerComponents['X-RateLimit-Limit']),
  'X-RateLimit-Remaining': optional(headerComponents['X-RateLimit-Remaining']),
  'X-RateLimit-Reset': optional(headerComponents['X-RateLimit-Reset']),
  'RateLimit-Policy': optional(headerComponents['RateLimit-Policy']),
  RateLimit: optional(headerComponents.RateLimit),
} as const;

const petName = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$',
} as const;

const petIdParameter = {
  name: 'petId',
  in: 'path',
  required: true,
  description: 'Identifier of the animal: an integer from 1 to 2^53-1, plain decimal digits.',
  schema: { type: 'integer', format: 'int64', minimum: 1, maximum: 9007199254740991 },
} as const;

const petJson = { 'application/json': { schema: ref('schemas/Pet') } } as const;

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Pet Store',
    version: '1.0.0',
    description:
      'List animals, filter them by availability, add animals and fetch one by identifier. Every response carries the rate-limit fields of the caller: per API key, two sliding-window rules of its plan (per minute and per day); without a valid key, 60 requests per minute per client address. An unknown path answers 404 and a known path with another method 405 (with `Allow`), before authentication and with or without a key.',
  },
  servers: [
    { url: 'https://api.petstore.example/v1', description: 'Production' },
    { url: 'https://staging.api.petstore.example/v1', description: 'Staging' },
  ],
  security: [{ bearerAuth: [] }],
  tags: [{ name: 'Pets', description: 'The animals of the store.' }],
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        tags: ['Pets'],
        summary: 'List animals',
        description:
          'Animals in ascending `id` order. The body is a bare array; the next page, if any, is announced in the `Link` header.',
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Maximum number of animals returned: plain decimal digits, 1 to 100.',
            schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          },
          {
            name: 'status',
            in: 'query',
            required: false,
            description: 'Keeps only animals with this status.',
            schema: ref('schemas/PetStatus'),
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'Opaque: taken from the `rel="next"` link of the previous page. Any other value is a 400.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: 'A page of animals.',
            headers: { ...rateLimitHeaders, Link: ref('headers/NextLink') },
            content: { 'application/json': { schema: ref('schemas/Pets') } },
          },
          '400': ref('responses/BadRequest'),
          '401': ref('responses/Unauthorized'),
          '429': ref('responses/TooManyRequests'),
          '500': ref('responses/InternalError'),
          '503': ref('responses/ServiceUnavailable'),
        },
      },
      post: {
        operationId: 'createPet',
        tags: ['Pets'],
        summary: 'Add an animal',
        requestBody: {
          required: true,
          description: 'A JSON object of at most 16 KiB; `Content-Type: application/json` (a charset parameter is fine).',
          content: { 'application/json': { schema: ref('schemas/NewPet') } },
        },
        responses: {
          '201': {
            description: 'Animal added; the body carries its assigned `id`.',
            headers: { ...rateLimitHeaders, Location: ref('headers/Location') },
            content: petJson,
          },
          '400': ref('responses/BadRequest'),
          '401': ref('responses/Unauthorized'),
          '413': ref('responses/PayloadTooLarge'),
          '415': ref('responses/UnsupportedMediaType'),
          '429': ref('responses/TooManyRequests'),
          '500': ref('responses/InternalError'),
          '503': ref('responses/ServiceUnavailable'),
        },
      },
    },
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        tags: ['Pets'],
        summary: 'Get an animal',
        description:
          'Deprecated: removed on 5 December 2030. Use `GET /pets` with the `status` filter instead. The 200, 400 and 404 responses carry `Deprecation`, `Sunset` and a `successor-version` link.',
        deprecated: true,
        parameters: [petIdParameter],
        responses: {
          '200': { description: 'The animal.', headers: deprecationHeaders, content: petJson },
          '400': {
            description: '`petId` is not an integer from 1 to 2^53-1.',
            headers: deprecationHeaders,
            content: errorContent(400, ['invalid_request']),
          },
          '401': ref('responses/Unauthorized'),
          '404': {
            description: 'No animal has this identifier.',
            headers: deprecationHeaders,
            content: errorContent(404, ['not_found']),
          },
          '429': ref('responses/TooManyRequests'),
          '500': ref('responses/InternalError'),
          '503': ref('responses/ServiceUnavailable'),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        description: 'Readable without an API key; limited per client address like any request.',
        security: [],
        responses: {
          '200': {
            description: 'The OpenAPI document of this API.',
            headers: rateLimitHeaders,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['openapi', 'info', 'paths'],
                  properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
                },
              },
            },
          },
          '400': ref('responses/BadRequest'),
          '429': ref('responses/TooManyRequests'),
          '500': ref('responses/InternalError'),
          '503': ref('responses/ServiceUnavailable'),
        },
      },
    },
  },
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: '`Authorization: Bearer <API_KEY>`; the scheme name is case-insensitive.',
      },
    },
    schemas: {
      PetStatus: {
        type: 'string',
        enum: ['available', 'pending', 'sold'],
        description: 'Availability of an animal.',
      },
      NewPet: {
        type: 'object',
        description:
          '`name` is trimmed, then must be 1 to 100 characters (code points) without control characters. Any field not listed here, `id` included, is a 400.',
        required: ['name', 'categoryId'],
        additionalProperties: false,
        properties: {
          name: petName,
          categoryId: { type: 'integer', format: 'int64', minimum: 1, maximum: 9007199254740991 },
          status: { ...ref('schemas/PetStatus'), default: 'available' },
        },
      },
      Pet: {
        type: 'object',
        required: ['id', 'name', 'categoryId', 'status'],
        additionalProperties: false,
        properties: {
          id: { type: 'integer', format: 'int64', minimum: 1, maximum: 9007199254740991, readOnly: true },
          name: petName,
          categoryId: { type: 'integer', format: 'int64', minimum: 1, maximum: 9007199254740991 },
          status: ref('schemas/PetStatus'),
        },
      },
      Pets: { type: 'array', items: ref('schemas/Pet'), maxItems: 100 },
      Error: {
        type: 'object',
        required: ['code', 'message', 'status'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', enum: ERROR_CODES, description: 'Machine-readable error code.' },
          message: { type: 'string', description: 'Human-readable description; a 400 names the offending field.' },
          status: { type: 'integer', description: 'The HTTP status code of the response.' },
        },
      },
    },
    headers: headerComponents,
    responses: {
      BadRequest: {
        description: 'An invalid path parameter, query parameter or body, or an unknown query parameter; the message names the offending one.',
        headers: rateLimitHeaders,
        content: errorContent(400, ['invalid_request']),
      },
      Unauthorized: {
        description: 'The API key is missing or invalid.',
        headers: { ...rateLimitHeaders, 'WWW-Authenticate': ref('headers/WWW-Authenticate') },
        content: errorContent(401, ['unauthorized']),
      },
      NotFound: {
        description: 'No such path (answered before authentication, with or without a key).',
        headers: rateLimitHeaders,
        content: errorContent(404, ['not_found']),
      },
      MethodNotAllowed: {
        description: 'A known path with another method (answered before authentication, with or without a key).',
        headers: { ...rateLimitHeaders, Allow: ref('headers/Allow') },
        content: errorContent(405, ['method_not_allowed']),
      },
      PayloadTooLarge: {
        description: 'The body is larger than 16 KiB.',
        headers: rateLimitHeaders,
        content: errorContent(413, ['payload_too_large']),
      },
      UnsupportedMediaType: {
        description: 'The body is not sent as `application/json`.',
        headers: rateLimitHeaders,
        content: errorContent(415, ['unsupported_media_type']),
      },
      TooManyRequests: {
        description: 'Over the limit (`rate_limited`), or the API key is temporarily banned for ignoring 429s (`api_key_banned`).',
        headers: { ...rateLimitHeaders, 'Retry-After': ref('headers/Retry-After') },
        content: errorContent(429, ['rate_limited', 'api_key_banned']),
      },
      InternalError: {
        description: 'An unexpected failure; no internals are disclosed.',
        headers: optionalRateLimitHeaders,
        content: errorContent(500, ['internal_error']),
      },
      ServiceUnavailable: {
        description: 'A backing store is unreachable; retry shortly.',
        headers: {
          ...optionalRateLimitHeaders,
          'Retry-After': optional(headerComponents['Retry-After']),
        },
        content: errorContent(503, ['service_unavailable']),
      },
    },
  },
} as const;
