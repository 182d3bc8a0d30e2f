/** Failures the domain reports as values. The HTTP adapter alone maps them to statuses. */
export type DomainErrorCode =
  | 'invalid_request'
  | 'not_found'
  | 'forbidden'
  | 'pet_unavailable'
  | 'order_not_cancellable'
  | 'invalid_transition';

export interface DomainError {
  readonly code: DomainErrorCode;
  readonly message: string;
  /** The offending input, e.g. `name`, `limit`, `cursor`, `petId`. */
  readonly field?: string;
}

export const invalid = (field: string, message: string): DomainError => ({ code: 'invalid_request', field, message });
export const notFound = (message: string): DomainError => ({ code: 'not_found', message });
export const refused = (code: Exclude<DomainErrorCode, 'invalid_request' | 'not_found'>, message: string): DomainError => ({ code, message });

/**
 * Thrown by a store asked to create past the last id (2^53-1, the largest integer a JSON client
 * reads exactly): not a value, since no caller can do anything about it, and not an outage, since
 * no retry helps. Every create after it fails the same way; nothing was stored.
 */
export class IdsExhaustedError extends Error {
  override readonly name = 'IdsExhaustedError';
  readonly code = 'ids_exhausted';
  /** `what`: the records whose ids ran out, e.g. `pets`. */
  constructor(readonly what: string) {
    super(`every id up to 2^53-1 has been given to ${what}`);
  }
}

/**
 * Thrown by an adapter whose backing store cannot be reached (or answers too late).
 * Not a value: the caller cannot act on it, the transport answers 503.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'service_unavailable';
  /** The store as named in the message, e.g. `Redis`. */
  constructor(readonly store: string, options?: { cause?: unknown }) {
    super(`${store} is unavailable`, options);
  }
}
