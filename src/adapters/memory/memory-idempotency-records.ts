import type { Clock } from '../../ports/clock.js';
import {
  IDEMPOTENCY_IN_FLIGHT_MS,
  IDEMPOTENCY_MARK_RESOLUTION_MS,
  IDEMPOTENCY_RECORD_MS,
  type IdempotencyClaim,
  type IdempotencyStart,
  type IdempotentResult,
} from '../../ports/idempotency-store.js';
import { ExpiryQueue } from './expiry-queue.js';

interface IdempotencyRecord {
  readonly key: string;
  readonly fingerprint: string;
  readonly expiresAt: number;
  /** Undefined while the first request is in flight. */
  readonly result: IdempotentResult | undefined;
}

const STARTED: IdempotencyStart = { kind: 'started' };
const REUSED: IdempotencyStart = { kind: 'reused' };

// JSON of the pair: no scope and key can spell the same string as another pair.
const keyOf = (claim: IdempotencyClaim): string => JSON.stringify([claim.scope, claim.key]);

/**
 * One process's Idempotency-Key records, shared by MemoryIdempotencyStore (begin, release) and
 * the repositories that complete them in the same synchronous step as they store. Every method
 * is synchronous, so no other request can run between a check and its write. Expired records
 * are swept on every call, so memory follows the keys used within the last 24 h.
 */
export class MemoryIdempotencyRecords {
  readonly #clock: Clock;
  readonly #records = new Map<string, IdempotencyRecord>();
  // One queue per lifetime, so each stays in order of expiry.
  readonly #inFlight = new ExpiryQueue<IdempotencyRecord>();
  readonly #completed = new ExpiryQueue<IdempotencyRecord>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Records and in-flight marks held. */
  get size(): number {
    return this.#records.size;
  }

  begin(claim: IdempotencyClaim): IdempotencyStart {
    const now = this.#sweep();
    const key = keyOf(claim);
    const record = this.#records.get(key);
    // A record can outlive its time here only when the clock went back since it was queued. A
    // mark's last second holds nothing off (see IDEMPOTENCY_MARK_RESOLUTION_MS).
    const leftMs = record === undefined ? 0 : record.expiresAt - now;
    const holds = record !== undefined && (record.result === undefined ? leftMs >= IDEMPOTENCY_MARK_RESOLUTION_MS : leftMs > 0);
    if (!holds) {
      this.#put(this.#inFlight, { key, fingerprint: claim.fingerprint, expiresAt: now + IDEMPOTENCY_IN_FLIGHT_MS, result: undefined });
      return STARTED;
    }
    if (record.fingerprint !== claim.fingerprint) return REUSED;
    return record.result === undefined ? { kind: 'in_flight', leftMs } : { kind: 'replay', result: record.result };
  }

  /** Drops the in-flight mark of this claim; a completed record stays. */
  release(claim: IdempotencyClaim): void {
    this.#sweep();
    const key = keyOf(claim);
    const record = this.#records.get(key);
    if (record !== undefined && record.result === undefined && record.fingerprint === claim.fingerprint) this.#records.delete(key);
  }

  /** What a request of this claim already stored, if one did: a repeat stores nothing more. */
  completed(claim: IdempotencyClaim): IdempotentResult | undefined {
    const now = this.#sweep();
    const record = this.#records.get(keyOf(claim));
    return record !== undefined && record.expiresAt > now && record.fingerprint === claim.fingerprint ? record.result : undefined;
  }

  /** What the claim's request stored, kept 24 h: replaces its mark, or stands alone when there was none. */
  complete(claim: IdempotencyClaim, result: IdempotentResult): void {
    const now = this.#sweep();
    this.#put(this.#completed, { key: keyOf(claim), fingerprint: claim.fingerprint, expiresAt: now + IDEMPOTENCY_RECORD_MS, result });
  }

  #put(queue: ExpiryQueue<IdempotencyRecord>, record: IdempotencyRecord): void {
    this.#records.set(record.key, record);
    queue.push(record);
  }

  #sweep(): number {
    const now = this.#clock.now();
    const drop = (record: IdempotencyRecord): void => {
      // A record replaced since it was queued is no longer this one: leave its successor.
      if (this.#records.get(record.key) === record) this.#records.delete(record.key);
    };
    this.#inFlight.popExpired(now, drop);
    this.#completed.popExpired(now, drop);
    return now;
  }
}
