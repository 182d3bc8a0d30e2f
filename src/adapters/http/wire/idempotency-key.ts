export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** draft-ietf-httpapi-idempotency-key-header: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{1,255}$';
const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * Whether the request's Idempotency-Key header is one a POST may carry. Repeated headers arrive
 * joined with ", " (or as an array): the space makes them invalid too.
 */
export const isIdempotencyKey = (header: string | string[] | undefined): header is string =>
  typeof header === 'string' && IDEMPOTENCY_KEY.test(header);
