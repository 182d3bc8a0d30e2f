import { MAX_ID } from '../../../domain/paging/ids.js';
import { MAX_BODY_BYTES } from './request-limits.js';

/** The one table of error codes the API answers with (docs/interface.md, "Errors"). */
export const HTTP_ERRORS = {
  invalid_request: { status: 400, message: 'The request is invalid.' },
  unauthorized: { status: 401, message: 'A valid API key is required: Authorization: Bearer <API_KEY>.' },
  // 402, not 429: no retry within seconds helps; the balance comes back at its refill (Retry-After) or when an operator tops it up.
  credits_exhausted: { status: 402, message: "This API key's credits are spent: they refill at the time in Retry-After, or when topped up." },
  forbidden: { status: 403, message: 'This API key may not do this.' },
  not_found: { status: 404, message: 'No such resource.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this resource.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  pet_unavailable: { status: 409, message: 'The pet is not available.' },
  order_not_cancellable: { status: 409, message: 'A delivered order cannot be cancelled.' },
  invalid_transition: { status: 409, message: 'The order cannot move to this status from its current one.' },
  key_revoked: { status: 409, message: 'The API key is revoked, and a revoked key stays so.' },
  key_not_banned: { status: 409, message: 'The API key is not banned: nothing changed.' },
  idempotency_conflict: { status: 409, message: 'A request with this Idempotency-Key is still in flight, or its fate not yet known; retry after the seconds in Retry-After.' },
  payload_too_large: { status: 413, message: `The request body must be at most ${MAX_BODY_BYTES} bytes.` },
  expectation_failed: { status: 417, message: 'The only expectation this server meets is Expect: 100-continue.' },
  unsupported_media_type: { status: 415, message: 'The request body must be sent as Content-Type: application/json.' },
  idempotency_key_reused: { status: 422, message: 'This Idempotency-Key was used for a different request.' },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  rate_limited: { status: 429, message: 'Rate limit exceeded: retry after the number of seconds in Retry-After.' },
  concurrency_limited: { status: 429, message: 'Too many requests of this API key are in flight at once: retry after the seconds in Retry-After.' },
  api_key_banned: { status: 429, message: 'This API key is temporarily banned for sending requests while rate limited.' },
  internal_error: { status: 500, message: 'Something went wrong on our side.' },
  service_unavailable: { status: 503, message: 'A backing store is unavailable; retry shortly.' },
  // 507 (RFC 4918): the store cannot hold what the request would create, and no retry changes that.
  ids_exhausted: { status: 507, message: `Every id up to ${MAX_ID} has been given: nothing more can be created here.` },
} as const satisfies Record<string, { status: number; message: string }>;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

const bodyOf = (code: HttpErrorCode, message: string): string => JSON.stringify({ code, message, status: HTTP_ERRORS[code].status });

/** Bodies with the default message, serialised once: the 429s of a flood all use them. */
const DEFAULT_BODIES = Object.fromEntries(
  Object.entries(HTTP_ERRORS).map(([code, { message }]) => [code, bodyOf(code as HttpErrorCode, message)]),
) as Record<HttpErrorCode, string>;

export const errorBody = (code: HttpErrorCode, message?: string): string =>
  message === undefined ? DEFAULT_BODIES[code] : bodyOf(code, message);
