import type { ApiErrorCode } from './types.js';

/**
 * Codes the client gives where the server's Error format has none: `network_error` (no answer:
 * connection refused or reset, DNS failure; `status` 0) and `invalid_response` (an answer that
 * is not the API's, e.g. a proxy's HTML page).
 */
export type ClientErrorCode = 'network_error' | 'invalid_response';

export type PetStoreErrorCode = ApiErrorCode | ClientErrorCode;

/** A failed call: the server's Error (`status`, `code`, `message`) or one of the ClientErrorCodes. */
export class PetStoreError extends Error {
  override readonly name = 'PetStoreError';
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly code: PetStoreErrorCode;
  /** The answer's `Retry-After` in milliseconds, when it had one (429, 503, 409 `idempotency_conflict`). */
  readonly retryAfterMs: number | undefined;

  constructor(status: number, code: PetStoreErrorCode, message: string, options: { retryAfterMs?: number | undefined; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.retryAfterMs = options.retryAfterMs;
  }
}

const isErrorBody = (body: unknown): body is { code: ApiErrorCode; message: string; status: number } => {
  if (typeof body !== 'object' || body === null) return false;
  const { code, message, status } = body as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string' && typeof status === 'number';
};

/** The error a non-2xx answer stands for, from its parsed body (undefined when not JSON). */
export function errorOfAnswer(status: number, body: unknown, retryAfterMs: number | undefined): PetStoreError {
  if (isErrorBody(body) && body.status === status) return new PetStoreError(status, body.code, body.message, { retryAfterMs });
  return new PetStoreError(status, 'invalid_response', `HTTP ${status} without the API's Error body`, { retryAfterMs });
}
