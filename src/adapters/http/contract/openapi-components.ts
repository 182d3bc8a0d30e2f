import { STANDARD_PLANS } from '../../../domain/quota/plan.js';
import { PLAN_NAME_PATTERN } from '../../../domain/quota/plan-rules.js';
import { RATE_LIMIT_FIELD_NAMES, rateLimitPolicyField } from '../../../domain/quota/rate-limit-fields.js';
import { DEFAULT_BASE_PATH } from './base-path.js';
import { RATE_LIMIT_STATUS_RULE } from './rate-limit-status-rule.js';
import { DOCS_CONTENT_SECURITY_POLICY } from '../docs/docs-content-security-policy.js';
import { CONTENT_CODINGS, STATIC_CACHE_CONTROL, VERSIONED_CACHE_CONTROL } from '../docs/static-file.js';
import { HTTP_ERRORS, type HttpErrorCode } from '../wire/http-errors.js';
import { IDENTITY_CODING } from '../wire/json-body.js';
import { MAX_BODY_BYTES } from '../wire/request-limits.js';
import { REQUEST_ID_HEADER, REQUEST_ID_PATTERN } from '../wire/request-id.js';

/*
 * What no operation declaration can say: the headers and error answers every operation
 * shares. The document builder refers to them by name.
 */

export const ref = (path: string) => ({ $ref: `#/components/${path}` }) as const;

/**
 * One or more rules, one pattern piece each: a plan of the server's plans file may name any
 * rules, so the pattern holds every name a plan may have (GET /rate_limit's own among them).
 */
const rulesPattern = (piece: string): string => `^${piece}(, ${piece})*$`;
const RULE_NAME = `"${PLAN_NAME_PATTERN}"`;
const ANONYMOUS_EXAMPLE = { rules: STANDARD_PLANS.free.rules.slice(0, 1) };

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The Location of a created resource, written under the base path the API is served at. */
const locationHeader = (basePath: string) =>
  ({
    description: 'The created resource.',
    required: true,
    schema: { type: 'string', pattern: `^${escapeRegExp(basePath)}(/[a-z]+)+/[1-9][0-9]*$` },
  }) as const;

export const HEADER_COMPONENTS = {
  [REQUEST_ID_HEADER]: {
    description:
      "The request's identifier, also in the server's logs: the request's own X-Request-Id when it is 1 to 128 characters of `A-Z a-z 0-9 . _ ~ : / + = -`, otherwise a new UUID.",
    required: true,
    schema: { type: 'string', pattern: REQUEST_ID_PATTERN },
  },
  [RATE_LIMIT_FIELD_NAMES.limit]: {
    description: 'The limit of the binding rule (the one with the fewest requests remaining; on a tie the shorter window).',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  [RATE_LIMIT_FIELD_NAMES.remaining]: {
    description: 'Requests the binding rule still admits in its current rolling window, after this one.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  [RATE_LIMIT_FIELD_NAMES.reset]: {
    description:
      "Unix time in whole seconds, rounded up, at which the binding rule's remaining next goes up (the current time when it counts nothing).",
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  [RATE_LIMIT_FIELD_NAMES.policy]: {
    description:
      `Every enforced rule applied to the request (draft-ietf-httpapi-ratelimit-headers-11): \`${rateLimitPolicyField(STANDARD_PLANS.free)}\` for a Free key, the rules of its plan that match the operation for a plan of the server's plans file; callers without a valid key have the single rule \`${rateLimitPolicyField(ANONYMOUS_EXAMPLE)}\`, counted per client address. \`GET /rate_limit\` with a valid key advertises its own rule first: \`${rateLimitPolicyField({ rules: [RATE_LIMIT_STATUS_RULE] })}\`.`,
    required: true,
    schema: { type: 'string', pattern: rulesPattern(`${RULE_NAME};q=[0-9]+;w=[0-9]+`) },
  },
  [RATE_LIMIT_FIELD_NAMES.rateLimit]: {
    description: 'Remaining requests (`r`) and seconds until they next go up (`t`) for every rule of RateLimit-Policy.',
    required: true,
    schema: { type: 'string', pattern: rulesPattern(`${RULE_NAME};r=[0-9]+;t=[0-9]+`) },
  },
  [RATE_LIMIT_FIELD_NAMES.retryAfter]: {
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
  'Accept-Encoding': {
    description: 'The only content coding a request body may be sent in (RFC 9110 §15.5.16): sent when a Content-Encoding was the reason for the 415.',
    required: false,
    schema: { type: 'string', const: IDENTITY_CODING },
  },
  Allow: {
    description: 'The methods the resource answers, e.g. `GET, HEAD, POST`.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' },
  },
  Deprecation: {
    description: 'RFC 9745: when the operation was deprecated, as a structured date (`@<Unix seconds>`).',
    required: true,
    schema: { type: 'string', pattern: '^@[0-9]+$' },
  },
  Sunset: {
    description: 'RFC 8594: when the operation is removed, as an HTTP date.',
    required: true,
    schema: { type: 'string' },
  },
  SuccessorLink: {
    description: 'RFC 8288: the replacement of the operation, `<...>; rel="successor-version"`.',
    required: true,
    schema: { type: 'string', pattern: 'rel="successor-version"' },
  },
  NextLink: {
    description:
      'RFC 8288: the next page, `<...>; rel="next"`, keeping `limit` and the filters. Absent on the last page; a page reached through it is never empty.',
    required: false,
    schema: { type: 'string', pattern: '^<[^>]+>; rel="next"$' },
  },
  'Idempotent-Replayed': {
    description: '`true` when this 201 replays the first answer to the same Idempotency-Key and body; nothing was stored.',
    required: false,
    schema: { type: 'string', const: 'true' },
  },
  ETag: {
    description: 'A strong validator of the bytes: send it as If-None-Match to get a 304 while the file is unchanged.',
    required: true,
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$' },
  },
  'Cache-Control': {
    description: `\`${VERSIONED_CACHE_CONTROL}\` when the URL names the file's current version (\`?v=\`, as the docs page links its files); otherwise \`${STATIC_CACHE_CONTROL}\`: revalidate before every use.`,
    required: true,
    schema: { type: 'string', enum: [STATIC_CACHE_CONTROL, VERSIONED_CACHE_CONTROL] },
  },
  Vary: {
    description: 'The answer depends on Accept-Encoding: sent for every file that has a compressed form.',
    required: false,
    schema: { type: 'string', const: 'Accept-Encoding' },
  },
  'Content-Encoding': {
    description: 'The coding of the body, the smallest the request accepts (its Accept-Encoding); absent: the file as stored. Each coding has its own ETag.',
    required: false,
    schema: { type: 'string', enum: [...CONTENT_CODINGS] },
  },
  'Content-Security-Policy': {
    description: "The page loads scripts, styles, images and data from this origin only (plus Swagger UI's inline styles and data: images).",
    required: true,
    schema: { type: 'string', const: DOCS_CONTENT_SECURITY_POLICY },
  },
  Location: locationHeader(DEFAULT_BASE_PATH),
} as const;

/** The header components of the document of the API served under `basePath`. */
export const headerComponents = (basePath: string) => ({ ...HEADER_COMPONENTS, Location: locationHeader(basePath) });

export type HeaderComponentName = keyof typeof HEADER_COMPONENTS;

export type HeaderRefs = Readonly<Record<string, { readonly $ref: string } | object>>;

const { retryAfter: _retryAfter, ...everyAnswersFields } = RATE_LIMIT_FIELD_NAMES;
/** The fields every answer carries once the quota is decided; Retry-After only a refusal. */
const RATE_LIMIT_FIELDS = Object.values(everyAnswersFields);

/** The headers of every answer the pipeline gives once the quota is decided: the rate-limit fields and X-Request-Id. */
export const rateLimitHeaders: HeaderRefs = {
  ...Object.fromEntries(RATE_LIMIT_FIELDS.map((name) => [name, ref(`headers/${name}`)])),
  [REQUEST_ID_HEADER]: ref(`headers/${REQUEST_ID_HEADER}`),
};

const optional = (name: HeaderComponentName) => ({ ...HEADER_COMPONENTS[name], required: false });

/** A 409 of an idempotent POST: `idempotency_conflict` carries Retry-After, its other codes (`pet_unavailable`) do not. */
export const idempotencyConflictHeaders: HeaderRefs = {
  ...rateLimitHeaders,
  [RATE_LIMIT_FIELD_NAMES.retryAfter]: {
    description:
      'With `idempotency_conflict`: whole seconds, at least 1, after which the fate of the request first sent with this Idempotency-Key is known (a retry then replays its 201 or runs anew), never past the end of its in-flight mark.',
    required: false,
    schema: { type: 'integer', minimum: 1 },
  },
};

/** A 429: the rate-limit fields and the Retry-After of the refusal. */
export const refusalHeaders: HeaderRefs = { ...rateLimitHeaders, [RATE_LIMIT_FIELD_NAMES.retryAfter]: ref(`headers/${RATE_LIMIT_FIELD_NAMES.retryAfter}`) };

/** When the quota store itself failed, no decision exists: the rate-limit fields may be absent. */
const optionalRateLimitHeaders: HeaderRefs = Object.fromEntries(RATE_LIMIT_FIELDS.map((name) => [name, optional(name)]));

/** An Error body narrowed to the given codes, so `status` must equal the HTTP status. */
export const errorContent = (codes: readonly HttpErrorCode[]) => {
  const status = HTTP_ERRORS[codes[0]!].status;
  return {
    'application/json': {
      schema: {
        allOf: [ref('schemas/Error'), { type: 'object', properties: { code: { enum: codes }, status: { const: status } } }],
      },
    },
  };
};

export const errorResponse = (description: string, codes: readonly HttpErrorCode[], headers: HeaderRefs = rateLimitHeaders) => ({
  description,
  headers,
  content: errorContent(codes),
});

/** The error answers any operation may give, by the status they answer with. */
export const SHARED_RESPONSES = {
  BadRequest: errorResponse(
    'An invalid path parameter, query parameter, header or body, or an unknown query parameter; the message names the offending one.',
    ['invalid_request'],
  ),
  Unauthorized: errorResponse('The API key is missing or invalid.', ['unauthorized'], {
    ...rateLimitHeaders,
    'WWW-Authenticate': ref('headers/WWW-Authenticate'),
  }),
  NotFound: errorResponse('No such path (answered before authentication, with or without a key).', ['not_found']),
  MethodNotAllowed: errorResponse('A known path with another method (answered before authentication, with or without a key).', ['method_not_allowed'], {
    ...rateLimitHeaders,
    Allow: ref('headers/Allow'),
  }),
  PayloadTooLarge: errorResponse(`The body is larger than ${MAX_BODY_BYTES} bytes.`, ['payload_too_large']),
  UnsupportedMediaType: errorResponse(
    `The body is not sent as \`application/json\`, or is sent with a Content-Encoding other than \`${IDENTITY_CODING}\` (then with \`Accept-Encoding: ${IDENTITY_CODING}\`).`,
    ['unsupported_media_type'],
    { ...rateLimitHeaders, 'Accept-Encoding': ref('headers/Accept-Encoding') },
  ),
  PaymentRequired: errorResponse(
    "The API key's plan has credits and they hold less than the request costs (`credits_exhausted`): nothing of the request is counted. Retry-After says when they refill (absent when they never do); an operator's top-up brings them back sooner.",
    ['credits_exhausted'],
    {
      ...rateLimitHeaders,
      [RATE_LIMIT_FIELD_NAMES.retryAfter]: {
        description: 'Whole seconds, at least 1, to the next refill of the credits; absent when they never refill.',
        required: false,
        schema: { type: 'integer', minimum: 1 },
      },
    },
  ),
  TooManyRequests: errorResponse(
    'Over the limit (`rate_limited`), as many requests of the API key in flight as its plan allows (`concurrency_limited`, with `Retry-After: 1`), or the API key is temporarily banned for ignoring 429s (`api_key_banned`).',
    ['rate_limited', 'concurrency_limited', 'api_key_banned'],
    refusalHeaders,
  ),
  InternalError: errorResponse('An unexpected failure; no internals are disclosed.', ['internal_error'], optionalRateLimitHeaders),
  ServiceUnavailable: errorResponse('A backing store is unreachable; retry shortly.', ['service_unavailable'], {
    ...optionalRateLimitHeaders,
    [RATE_LIMIT_FIELD_NAMES.retryAfter]: ref(`headers/${RATE_LIMIT_FIELD_NAMES.retryAfter}`),
  }),
  // Answered by the HTTP parser's error handler, before any route or quota decision: no rate-limit fields.
  RequestTimeout: { description: 'The request was not received in time; the connection is closed.', headers: {}, content: errorContent(['request_timeout']) },
  HeadersTooLarge: { description: 'The request headers are too large; the connection is closed.', headers: {}, content: errorContent(['headers_too_large']) },
} as const;

export type SharedResponseName = keyof typeof SHARED_RESPONSES;
