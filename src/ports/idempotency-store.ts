import type { Order } from '../domain/orders/order.js';
import type { Pet } from '../domain/pets/pet.js';
import type { CallScope } from './tracer.js';

/**
 * A request's claim on an Idempotency-Key: the key, the scope it is unique in (the API key's
 * digest) and the fingerprint of the request (method, path and body bytes).
 */
export interface IdempotencyClaim {
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: string;
}

/** What a first request created, replayed to its repeats. */
export type IdempotentResult = { readonly kind: 'pet'; readonly pet: Pet } | { readonly kind: 'order'; readonly order: Order };

export type IdempotencyStart =
  /** No record: the claim is now in flight and the request may run. */
  | { readonly kind: 'started' }
  /** A request with this key and fingerprint already succeeded. */
  | { readonly kind: 'replay'; readonly result: IdempotentResult }
  /**
   * A request with this key has not finished yet, or failed where its mark could not be dropped:
   * its fate is known once the mark ends, `leftMs` from now (at least IDEMPOTENCY_MARK_RESOLUTION_MS).
   */
  | { readonly kind: 'in_flight'; readonly leftMs: number }
  /** The key was used for a request with another fingerprint. */
  | { readonly kind: 'reused' };

/**
 * Idempotency-Key records, kept 24 h and shared by every instance. Completion is not here: the
 * repository that creates the resource writes the record in the same atomic step (see
 * PetRepository.create and OrderRepository.place), so a request that succeeded can always be
 * replayed, even when its answer was lost; and that step returns what the claim already stored
 * instead of storing it again.
 */
export interface IdempotencyStore {
  begin(claim: IdempotencyClaim, scope?: CallScope): Promise<IdempotencyStart>;
  /** The request stored nothing: drop the in-flight mark so a retry may run. */
  release(claim: IdempotencyClaim, scope?: CallScope): Promise<void>;
}

/** How long a completed record is kept. */
export const IDEMPOTENCY_RECORD_MS = 24 * 60 * 60 * 1000;
/**
 * A request holds its in-flight mark only from `begin` to its one creating step; a mark left
 * behind (the store failed, the instance died) expires after this, so a retry is held off no
 * longer. A creating step whose claim already stored something returns that instead, so an
 * expired mark can never let a repeat store twice.
 */
export const IDEMPOTENCY_IN_FLIGHT_MS = 5 * 1000;
/**
 * The last second of an in-flight mark holds no repeat off: the repeat starts anew (its creating
 * step returns what the first stored, if it did). So a mark reported in flight has at least this
 * much left, and a Retry-After of its whole seconds left, rounded down, is never 0 and never
 * points past its end: a repeat sent when it says finds the request's fate known.
 */
export const IDEMPOTENCY_MARK_RESOLUTION_MS = 1000;
