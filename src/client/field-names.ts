import type { IDEMPOTENCY_KEY_HEADER } from '../adapters/http/wire/idempotency-key.js';
import type { RATE_LIMIT_FIELD_NAMES } from '../domain/quota/rate-limit-fields.js';

/*
 * The server's field names as fetch's Headers reads them. The client loads no server code, so
 * each is written here, and its type holds it to the server's one declaration: renaming a
 * field there fails the build here.
 */
type RateLimitFieldName<Field extends keyof typeof RATE_LIMIT_FIELD_NAMES> = Lowercase<(typeof RATE_LIMIT_FIELD_NAMES)[Field]>;

export const RATE_LIMIT_FIELD: RateLimitFieldName<'rateLimit'> = 'ratelimit';
export const RATE_LIMIT_POLICY_FIELD: RateLimitFieldName<'policy'> = 'ratelimit-policy';
export const RETRY_AFTER_FIELD: RateLimitFieldName<'retryAfter'> = 'retry-after';
export const IDEMPOTENCY_KEY_FIELD: Lowercase<typeof IDEMPOTENCY_KEY_HEADER> = 'idempotency-key';
