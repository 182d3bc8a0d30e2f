import type { QuotaStore } from '../../ports/quota-store.js';
import { assertDecidablePolicy } from './decidable-policy.js';
import type { QuotaDecision } from './quota-decision.js';
import type { BanPolicy, QuotaPolicy, QuotaRule } from './quota-rule.js';
import { type RateLimitHeaders, rateLimitFields, rateLimitHeaders } from './rate-limit-fields.js';

export interface RateLimiterOptions<S extends QuotaStore = QuotaStore> {
  /**
   * Every rule must admit the request: at most `limit` requests in any rolling `windowMs`, its
   * `windowMs` a multiple of 3000 (60 sub-windows of whole milliseconds, and whole seconds for
   * `RateLimit-Policy`'s `w`); or, with `kind: 'burst'`, a bucket of `limit` refilling
   * completely in `windowMs`, any whole number of milliseconds (`w` its seconds rounded up).
   * `name` a distinct label of printable ASCII without `"` or `\`.
   */
  readonly rules: readonly QuotaRule[];
  /** Where the counters live: a MemoryQuotaStore (synchronous) or a RedisQuotaStore (shared by instances). */
  readonly store: S;
  /** Bans a subject refused again and again before its Retry-After (DEFAULT_BAN_POLICY: 20 strikes in 10 min ban for 15 min). Absent: never banned. */
  readonly ban?: BanPolicy;
}

/** One request's answer. */
export interface RateLimitCheck {
  /** True exactly when `decision.verdict` is `admitted`; a refusal was counted nowhere. */
  readonly allowed: boolean;
  readonly decision: QuotaDecision;
  /**
   * The fields to write on the response, whatever its status: `X-RateLimit-Limit`,
   * `X-RateLimit-Remaining`, `X-RateLimit-Reset` of the binding rule, `RateLimit-Policy` and
   * `RateLimit` of every rule, and `Retry-After` when refused.
   */
  readonly headers: RateLimitHeaders;
}

/** What `check` returns over a store `S`: no promise over a synchronous store, a promise over a remote one. */
export type RateLimitCheckOf<S extends QuotaStore> = [ReturnType<S['decide']>] extends [QuotaDecision]
  ? RateLimitCheck
  : [ReturnType<S['decide']>] extends [Promise<QuotaDecision>]
    ? Promise<RateLimitCheck>
    : RateLimitCheck | Promise<RateLimitCheck>;

export interface RateLimiter<S extends QuotaStore = QuotaStore> {
  /** The validated rules and ban, as handed to the store. */
  readonly policy: QuotaPolicy;
  /**
   * Decides and counts one request of `subject` (a client address, an API key...) in one
   * atomic step of the store, weighing `cost` units (default 1; a whole number up to the
   * smallest limit, else a RangeError). Limiters sharing a store share subjects: give each
   * limiter's subjects a prefix of its own (`search:${ip}`). Rejects with StoreUnavailableError
   * when a remote store cannot answer.
   */
  check(subject: string, cost?: number): RateLimitCheckOf<S>;
  /**
   * What `check(subject, cost)` would answer now, counting nothing and striking nothing:
   * `decision.remaining` is each rule's room before the request, and `allowed` whether it fits.
   */
  get(subject: string, cost?: number): RateLimitCheckOf<S>;
  /** Forgets `subject`: its counters, strikes and any ban (in tests, or after a mistake). */
  reset(subject: string): ReturnType<S['reset']>;
}

/** An sf-string's characters (RFC 9651), without the two that would need escaping. */
const FIELD_SAFE_NAME = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;

/** Whole seconds (RateLimit-Policy's `w`) cut into 60 sub-windows of whole milliseconds. */
const LIMITER_WINDOW_STEP_MS = 3_000;

/** Throws on what the store or the header fields could not honour. */
const assertLimiterPolicy = (policy: QuotaPolicy): void => {
  // Checked before the store's own rule (60 whole-millisecond sub-windows) so that the message names the limiter's, in its units.
  for (const { name, windowMs, kind } of policy.rules) {
    // A bucket has no sub-windows: any whole number of milliseconds, the store's own rule.
    if (kind === 'burst') continue;
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0 || windowMs % LIMITER_WINDOW_STEP_MS !== 0) {
      throw new RangeError(`rate limiter rule ${name}: windowMs must be a multiple of 3 s (3000, 60000, 3600000...): whole seconds cut into 60 sub-windows`);
    }
  }
  assertDecidablePolicy(policy);
  const { rules, ban } = policy;
  if (rules.length === 0) throw new RangeError('rate limiter: at least one rule is needed');
  const names = new Set<string>();
  for (const { name } of rules) {
    if (typeof name !== 'string' || !FIELD_SAFE_NAME.test(name)) {
      throw new RangeError(`rate limiter rule ${JSON.stringify(name)}: name must be printable ASCII without " or \\`);
    }
    if (names.has(name)) throw new RangeError(`rate limiter rule ${name}: names must be distinct`);
    names.add(name);
  }
  if (ban !== undefined) {
    for (const field of ['strikeWindowMs', 'banMs'] as const) {
      const value = ban[field];
      if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`ban policy: ${field} must be a positive integer`);
    }
  }
};

/**
 * An exact limiter of its own, of sliding windows and burst buckets, for an embedder's routes:
 * every rule at once, bans, and the header fields of each answer. Throws a RangeError here, at creation, on a
 * rule or ban no store could decide, never on a request.
 */
export const createRateLimiter = <S extends QuotaStore>({ rules, store, ban }: RateLimiterOptions<S>): RateLimiter<S> => {
  const ownRules = rules.map(
    ({ name, limit, windowMs, kind }): QuotaRule => Object.freeze(kind === undefined ? { name, limit, windowMs } : { name, limit, windowMs, kind }),
  );
  const policy: QuotaPolicy = Object.freeze(
    ban === undefined
      ? { rules: Object.freeze(ownRules) }
      : { rules: Object.freeze(ownRules), ban: Object.freeze({ strikes: ban.strikes, strikeWindowMs: ban.strikeWindowMs, banMs: ban.banMs }) },
  );
  assertLimiterPolicy(policy);
  const settle = (decision: QuotaDecision): RateLimitCheck => ({
    allowed: decision.verdict === 'admitted',
    decision,
    headers: rateLimitHeaders(rateLimitFields(policy, decision)),
  });
  const smallestLimit = Math.min(...policy.rules.map((rule) => rule.limit));
  const checkedCost = (cost: number): number => {
    if (!Number.isSafeInteger(cost) || cost < 1 || cost > smallestLimit) {
      throw new RangeError(`rate limiter: cost must be a whole number from 1 to ${smallestLimit} (the smallest limit), not ${String(cost)}`);
    }
    return cost;
  };
  const answer = (decided: QuotaDecision | Promise<QuotaDecision>): RateLimitCheckOf<S> =>
    (decided instanceof Promise ? decided.then(settle) : settle(decided)) as RateLimitCheckOf<S>;
  return {
    policy,
    check: (subject, cost = 1) => answer(store.decide(subject, policy, checkedCost(cost))),
    get: (subject, cost = 1) => answer(store.peek(subject, policy, checkedCost(cost))),
    reset: (subject) => store.reset(subject) as ReturnType<S['reset']>,
  };
};
