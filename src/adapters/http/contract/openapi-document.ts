import type { TSchema } from 'typebox';
import { DEFAULT_BASE_PATH } from './base-path.js';
import type { HttpErrorCode } from '../wire/http-errors.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN } from '../wire/idempotency-key.js';
import { IDENTITY_CODING } from '../wire/json-body.js';
import { isErrorResponse, type OperationDeclaration } from './operation-declaration.js';
import {
  errorContent,
  headerComponents,
  idempotencyConflictHeaders,
  rateLimitHeaders,
  ref,
  refusalHeaders,
  SHARED_RESPONSES,
  type HeaderRefs,
  type SharedResponseName,
} from './openapi-components.js';
import { MAX_ID } from '../../../domain/paging/ids.js';
import { NAMED_SCHEMAS } from './schemas.js';
import { schemaReferences, type DocumentSchema } from './schema-references.js';
import { TAGS } from './tags.js';

type Json = Readonly<Record<string, unknown>>;

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: Json;
  readonly servers: readonly { readonly url: string; readonly description: string }[];
  readonly security: readonly Json[];
  readonly tags: readonly Json[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, Json>>>>;
  readonly components: Json;
}

/** An origin the API is served at, without a path: the document's server URL is the origin and the base path. */
export interface ServerOrigin {
  /** `https://api.petstore.example`; `''` for the origin the document itself was fetched from (a relative server URL). */
  readonly origin: string;
  readonly description: string;
}

/** The pet store's own deployments: the servers of the standalone server's document. */
export const PET_STORE_ORIGINS: readonly ServerOrigin[] = [
  { origin: 'https://api.petstore.example', description: 'Production' },
  { origin: 'https://staging.api.petstore.example', description: 'Staging' },
];

/** SPDX identifier of the package's license. */
export const LICENSE = 'MIT';

/** One relative server: wherever the document was fetched from (OpenAPI 3.1 resolves it against the document's URL). */
export const SAME_ORIGIN: readonly ServerOrigin[] = [{ origin: '', description: 'The origin this document was served from' }];

/**
 * The standalone server's servers: only the one the document was fetched from. Its docs page
 * allows requests to its own origin alone (connect-src 'self'), so "Try it out" against another
 * deployment would be refused by the page's own CSP; a document for other hosts is built with
 * `origins` (PET_STORE_ORIGINS).
 */
export const STANDALONE_ORIGINS: readonly ServerOrigin[] = SAME_ORIGIN;

export interface OpenApiOptions {
  /** When deprecated operations were deprecated (configurable, so it is not in the declarations). */
  readonly deprecatedAt: Date;
  /** Where the operations are served: every server URL ends with it and `paths` are relative to it. Default `/v1`. */
  readonly basePath?: string;
  /** The origins of `servers`. Default: PET_STORE_ORIGINS. */
  readonly origins?: readonly ServerOrigin[];
}

/** An error answer every operation of an API may give, written once under components/responses. */
export interface SharedResponse {
  readonly description: string;
  readonly headers: HeaderRefs;
  readonly content: Json;
}

/**
 * What a document says around its operations' declarations, so that the public API and the
 * admin API are written by one builder: who it is, how callers authenticate, its tags, schemas
 * and header components, the headers on every answer of an operation, and the error answers
 * every operation shares (one that is absent, such as a 429 where nothing is rate limited, is
 * not listed on any operation).
 */
export interface DocumentFrame<Tag extends string> {
  readonly info: Json;
  readonly servers: readonly { readonly url: string; readonly description: string }[];
  /** The bearer scheme every operation that is not public requires: its name and what it takes. */
  readonly bearer: { readonly name: string; readonly description: string };
  readonly tags: Readonly<Record<Tag, string>>;
  /** Schemas written under components/schemas, and referred to wherever they appear. */
  readonly schemas: Readonly<Record<string, TSchema>>;
  readonly headers: Json;
  readonly responses: Readonly<Partial<Record<SharedResponseName, SharedResponse>>>;
  /** The headers of every answer an operation gives (the public API: its rate-limit fields and X-Request-Id). */
  readonly answerHeaders: HeaderRefs;
  /** When deprecated operations were deprecated; needed only if one is. */
  readonly deprecatedAt?: Date;
}

const JSON_MEDIA_TYPES = ['application/json'] as const;
const contentOf = (documentSchema: DocumentSchema, schema: TSchema, mediaTypes: readonly string[] = JSON_MEDIA_TYPES): Json =>
  Object.fromEntries(mediaTypes.map((type) => [type, { schema: documentSchema(schema) }]));

/** Each media type's content with the body's examples, where it declares some. */
const withExamples = (content: Json, examples: Json | undefined): Json =>
  examples === undefined
    ? content
    : Object.fromEntries(Object.entries(content as Record<string, Json>).map(([type, media]) => [type, { ...(media as object), examples }]));

interface DocumentResponse {
  readonly shared?: SharedResponseName;
  readonly description: string;
  readonly headers: Json;
  readonly content?: Json;
}

/** The answers of one operation: its own, then those every operation of its kind shares. */
function responsesOf(operation: OperationDeclaration<string>, frame: DocumentFrame<string>, documentSchema: DocumentSchema): Map<number, DocumentResponse> {
  const responses = new Map<number, DocumentResponse>();
  const errors = new Map<number, { description: string; codes: HttpErrorCode[] }>();
  const addErrors = (status: number, description: string, codes: readonly HttpErrorCode[]): void => {
    const known = errors.get(status);
    errors.set(status, known === undefined ? { description, codes: [...codes] } : { description: `${known.description} ${description}`, codes: [...known.codes, ...codes] });
  };
  for (const [status, response] of Object.entries(operation.responses)) {
    if (isErrorResponse(response)) {
      addErrors(Number(status), response.description, response.errors);
      continue;
    }
    const headers = { ...(response.headers ?? {}), ...(operation.idempotent === true ? { 'Idempotent-Replayed': 'Idempotent-Replayed' } : {}) };
    responses.set(Number(status), {
      description: response.description,
      headers: { ...frame.answerHeaders, ...Object.fromEntries(Object.entries(headers).map(([name, component]) => [name, ref(`headers/${component}`)])) },
      ...(response.body === undefined ? {} : { content: contentOf(documentSchema, response.body, response.mediaTypes) }),
    });
  }
  if (operation.idempotent === true) {
    addErrors(409, 'A request with this Idempotency-Key is still in flight, or its fate not yet known (Retry-After: when it is).', ['idempotency_conflict']);
    addErrors(422, 'This Idempotency-Key was used with another body.', ['idempotency_key_reused']);
    // The creating operations (those that take an Idempotency-Key) are the ones that take an id.
    addErrors(507, `Every id up to ${MAX_ID} has been given: nothing is stored, and no retry helps.`, ['ids_exhausted']);
  }
  for (const [status, { description, codes }] of errors) {
    const headers = status === 429 ? refusalHeaders : status === 409 && operation.idempotent === true ? idempotencyConflictHeaders : frame.answerHeaders;
    responses.set(status, { description, headers, content: errorContent(codes) });
  }
  const add = (status: number, name: SharedResponseName): void => {
    const response = frame.responses[name];
    if (response !== undefined && !responses.has(status)) responses.set(status, { shared: name, ...response });
  };
  // Repeated Authorization or Host headers are a 400 on every operation.
  add(400, 'BadRequest');
  if (operation.auth === 'apiKey') add(401, 'Unauthorized');
  if (operation.body !== undefined) {
    add(413, 'PayloadTooLarge');
    add(415, 'UnsupportedMediaType');
  }
  // The HTTP parser's answers, before any route: any request may get them.
  add(408, 'RequestTimeout');
  // Any request of a key whose plan has credits may find them spent, whatever its operation.
  add(402, 'PaymentRequired');
  add(429, 'TooManyRequests');
  add(431, 'HeadersTooLarge');
  add(500, 'InternalError');
  add(503, 'ServiceUnavailable');
  return new Map([...responses].sort(([a], [b]) => a - b));
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description:
    'draft-ietf-httpapi-idempotency-key-header: 1 to 255 visible ASCII characters, scoped to the API key and kept 24 h. A repeat with the same body replays the first 201 (`Idempotent-Replayed: true`) and stores nothing; another body is a 422; a repeat while the first is in flight, or before a failed first is known to have stored nothing, a 409 whose Retry-After says when it is. Only a 201 is remembered.',
  schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN },
};

/** Declared wherever a body is read: the body is never decoded. */
const CONTENT_ENCODING_PARAMETER = {
  name: 'Content-Encoding',
  in: 'header',
  required: false,
  description: `Absent, or \`${IDENTITY_CODING}\`: the body is read as sent. Any other coding (\`gzip\`, \`br\`...) is a 415 \`unsupported_media_type\` with \`Accept-Encoding: ${IDENTITY_CODING}\`.`,
  schema: { type: 'string', const: IDENTITY_CODING },
};

const deprecationHeaders = {
  Deprecation: ref('headers/Deprecation'),
  Sunset: ref('headers/Sunset'),
  Link: ref('headers/SuccessorLink'),
};

function renderResponses(responses: Map<number, DocumentResponse>, deprecated: boolean, headOnly: boolean): Json {
  const rendered: Record<string, unknown> = {};
  for (const [status, { shared: name, description, headers, content }] of responses) {
    if (name !== undefined && !deprecated && !headOnly) {
      rendered[status] = ref(`responses/${name}`);
      continue;
    }
    rendered[status] = {
      description,
      headers: deprecated ? { ...headers, ...deprecationHeaders } : headers,
      ...(content === undefined || headOnly ? {} : { content }),
    };
  }
  return rendered;
}

function describe(operation: OperationDeclaration<string>, deprecatedAt: Date | undefined): string | undefined {
  const { deprecation } = operation;
  if (deprecation === undefined) return operation.description;
  if (deprecatedAt === undefined) throw new Error(`${operation.operationId} is deprecated: the document needs deprecatedAt`);
  const notice =
    `Deprecated since ${deprecatedAt.toISOString().slice(0, 10)} (\`Deprecation: @${Math.floor(deprecatedAt.getTime() / 1000)}\`); ` +
    `removed on ${deprecation.sunsetAt.toUTCString()} (\`Sunset\`). Use \`${deprecation.successor}\` instead. ` +
    'Every answer carries `Deprecation`, `Sunset` and a `successor-version` link.';
  return operation.description === undefined ? notice : `${operation.description} ${notice}`;
}

function operationObject(operation: OperationDeclaration<string>, frame: DocumentFrame<string>, documentSchema: DocumentSchema, headOnly: boolean): Json {
  const parameters = [
    ...Object.entries(operation.params ?? {}).map(([name, { description, schema }]) => ({
      name,
      in: 'path',
      required: true,
      description,
      schema: documentSchema(schema),
    })),
    ...Object.entries(operation.query ?? {}).map(([name, { description, schema }]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema: documentSchema(schema),
    })),
    ...(operation.idempotent === true ? [IDEMPOTENCY_KEY_PARAMETER] : []),
    ...(operation.body === undefined ? [] : [CONTENT_ENCODING_PARAMETER]),
  ];
  const description = describe(operation, frame.deprecatedAt);
  return {
    operationId: headOnly ? `${operation.operationId}Head` : operation.operationId,
    ...(operation.tags === undefined ? {} : { tags: operation.tags }),
    summary: headOnly ? `${operation.summary}: headers only` : operation.summary,
    ...(description === undefined ? {} : { description }),
    ...(operation.deprecation === undefined ? {} : { deprecated: true }),
    ...(operation.auth === 'public' ? { security: [] } : {}),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(operation.body === undefined
      ? {}
      : {
          requestBody: {
            required: operation.body.optional !== true,
            description: operation.body.description,
            content: withExamples(contentOf(documentSchema, operation.body.schema), operation.body.examples),
          },
        }),
    responses: renderResponses(responsesOf(operation, frame, documentSchema), operation.deprecation !== undefined, headOnly),
  };
}

/**
 * An OpenAPI 3.1 document: the declarations folded into `paths`, inside the frame of their API.
 * The one builder of both documents, the public API's and the admin API's.
 */
export function openApiDocument<Tag extends string>(operations: readonly OperationDeclaration<Tag>[], frame: DocumentFrame<Tag>): OpenApiDocument {
  const documentSchema = schemaReferences(frame.schemas);
  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of operations) {
    const item = (paths[operation.path] ??= {});
    item[operation.method.toLowerCase()] = operationObject(operation, frame, documentSchema, false);
    // HEAD is answered wherever GET is.
    if (operation.method === 'GET') item['head'] = operationObject(operation, frame, documentSchema, true);
  }
  return {
    openapi: '3.1.0',
    info: frame.info,
    servers: frame.servers,
    security: [{ [frame.bearer.name]: [] }],
    tags: [...new Set(operations.flatMap((operation) => operation.tags ?? []))].map((name) => ({ name, description: frame.tags[name] })),
    paths,
    components: {
      securitySchemes: { [frame.bearer.name]: { type: 'http', scheme: 'bearer', description: frame.bearer.description } },
      schemas: Object.fromEntries(Object.entries(frame.schemas).map(([name, schema]) => [name, documentSchema(schema, true)])),
      headers: frame.headers,
      responses: frame.responses,
    },
  };
}

/** The public API's document: its operations in the pet store's frame. */
export function buildOpenApiDocument(operations: readonly OperationDeclaration[], options: OpenApiOptions): OpenApiDocument {
  const basePath = options.basePath ?? DEFAULT_BASE_PATH;
  return openApiDocument(operations, {
    info: {
      title: 'Pet Store',
      version: '1.0.0',
      // The package's license (package.json), which a test holds this to.
      license: { name: 'MIT', identifier: LICENSE },
      // How to get a key and make a first call first: what a reader of the docs page came for; the parser's edge cases last.
      description: [
        'To call the API you need an API key: an operator creates one with `petstore keys create --plan free` (or `POST /keys` on the admin API), and in development the server prints demo keys at start. Press **Authorize**, paste the key, then **Try it out** on `GET /pets`.',
        'List animals, filter them by availability, add animals and fetch one by identifier. Every response carries the rate-limit fields of the caller: per API key, two sliding-window rules of its plan (per minute and per day); without a valid key, a per-minute rule per client address.',
        'An unknown path answers 404 and a known path with another method 405 (with `Allow`), before authentication and with or without a key. An `Expect` other than `100-continue` is answered 417 `expectation_failed`.',
        'Requests the HTTP parser cannot read are answered with an Error body, `Connection: close` and no rate-limit fields, as no route or caller is known yet (400, 408 `request_timeout`, 413, 431 `headers_too_large`).',
      ].join('\n\n'),
    },
    // An empty base path on the relative server is the root, `/`, not the empty (same document) reference.
    servers: (options.origins ?? PET_STORE_ORIGINS).map(({ origin, description }) => ({ url: origin + basePath || '/', description })),
    bearer: {
      name: 'bearerAuth',
      description: '`Authorization: Bearer <API_KEY>`; the scheme name is case-insensitive. More than one Authorization header is a 400.',
    },
    tags: TAGS,
    schemas: NAMED_SCHEMAS,
    headers: headerComponents(basePath),
    responses: SHARED_RESPONSES,
    answerHeaders: rateLimitHeaders,
    deprecatedAt: options.deprecatedAt,
  });
}
