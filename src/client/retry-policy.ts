import type { PetStoreError } from './pet-store-error.js';
import { sleep } from './sleep.js';

/** How the client retries a refused or failed call. Every field is optional; the defaults are given. */
export interface RetryOptions {
  /** Attempts of one call, the first included; 1 turns retries off. Default 4. */
  readonly maxAttempts?: number;
  /**
   * Total milliseconds one call may spend waiting between attempts. A wait that would go past it
   * (a `Retry-After` of 60 s, say) is not started: the last error is thrown at once. Infinity: no limit. Default 30 000.
   */
  readonly maxWaitMs?: number;
  /** Backoff without `Retry-After`: the n-th retry waits a uniformly random time below `min(maxDelayMs, baseDelayMs * 2^(n-1))`. Default 500. */
  readonly baseDelayMs?: number;
  /** The cap of that backoff. Default 10 000. */
  readonly maxDelayMs?: number;
  /** The random source of the jitter, in [0, 1). Default Math.random. */
  readonly random?: () => number;
  /** Waits `ms` milliseconds, rejecting with the signal's reason when it aborts. Default: a timer that never wakes early. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  maxAttempts: 4,
  maxWaitMs: 30_000,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  random: Math.random,
  sleep,
});

const requireNumber = (name: string, value: number, valid: boolean, expected: string): number => {
  if (!valid) throw new RangeError(`retry.${name} must be ${expected}: got ${String(value)}`);
  return value;
};

/** The options completed with the defaults; a nonsensical value is a RangeError naming it. */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY, ...options };
  const { maxAttempts, maxWaitMs, baseDelayMs, maxDelayMs } = policy;
  requireNumber('maxAttempts', maxAttempts, Number.isSafeInteger(maxAttempts) && maxAttempts >= 1, 'an integer of at least 1');
  requireNumber('maxWaitMs', maxWaitMs, typeof maxWaitMs === 'number' && maxWaitMs >= 0, 'a number of at least 0 (Infinity: no limit)');
  requireNumber('baseDelayMs', baseDelayMs, Number.isFinite(baseDelayMs) && baseDelayMs > 0, 'a finite number above 0');
  requireNumber('maxDelayMs', maxDelayMs, Number.isFinite(maxDelayMs) && maxDelayMs >= baseDelayMs, 'a finite number of at least baseDelayMs');
  for (const name of ['random', 'sleep'] as const) {
    if (typeof policy[name] !== 'function') throw new TypeError(`retry.${name} must be a function`);
  }
  return policy;
}

/**
 * Whether `failure` may be retried: 429 `rate_limited` or `concurrency_limited`, 409 `idempotency_conflict` (an earlier
 * attempt of this POST, under the same key, is in flight or its fate not yet known: Retry-After
 * says when it is), any 503, and no answer at all. Never `api_key_banned` (waiting would only
 * extend the ban), nor 402 `credits_exhausted` (credits come back at a refill or a top-up, not within a call), nor any
 * other 4xx (the same request fails the same way). A POST is safe to
 * repeat because each carries one Idempotency-Key; a DELETE or a PATCH moves an order to one
 * status, so a repeat adds nothing (after an unseen success a PATCH answers 409 `invalid_transition`).
 */
export const isRetryable = (failure: PetStoreError): boolean =>
  failure.code === 'rate_limited' || failure.code === 'concurrency_limited' || failure.code === 'idempotency_conflict' || failure.status === 503 || failure.code === 'network_error';

/** Milliseconds to wait before retry number `retry` (1 for the first): `Retry-After` when given, else full-jitter backoff. */
export function retryDelay(policy: RetryPolicy, failure: PetStoreError, retry: number): number {
  if (failure.retryAfterMs !== undefined) return failure.retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(policy.random() * ceiling);
}

/** `Retry-After` (RFC 9110: delay-seconds or an HTTP date) in milliseconds from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(field: string | null, now: number): number | undefined {
  if (field === null) return undefined;
  const text = field.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
