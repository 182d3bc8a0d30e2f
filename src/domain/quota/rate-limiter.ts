import type { QuotaStore } from '../../ports/quota-store.js';
import { assertDecidablePolicy, MAX_RULE_LIMIT } from './decidable-policy.js';
import type { QuotaDecision } from './quota-decision.js';
import type { BanPolicy, QuotaPolicy, QuotaRule } from './quota-rule.js';
import { type RateLimitHeaders, rateLimitFields, rateLimitHeaders } from './rate-limit-fields.js';
import { subjectPicker } from './subject-patterns.js';

/**
 * Limits of their own for some subjects: `{ subjects: 'partner:*', limits: { minute: 600 } }`.
 * The windows stay the rules'; a rule not named keeps its limit.
 */
export interface SubjectOverride {
  /**
   * One subject (`partner:acme`), or a pattern where `*` stands for any run of characters, none
   * included (`partner:*`, `*:eu`, `tenant:*:search`). A subject named exactly gets its own
   * override before any pattern's; else the first pattern in the list that matches it wins.
   */
  readonly subjects: string;
  /** New limits by rule name: each a whole number from 1 to 4294967295. */
  readonly limits: Readonly<Record<string, number>>;
}

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
  /** Other limits for the subjects they name (SubjectOverride); absent: every subject is decided by `rules`. */
  readonly overrides?: readonly SubjectOverride[];
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
  /** The validated rules and ban, as handed to the store for a subject no override names. */
  readonly policy: QuotaPolicy;
  /** What `subject` is decided by: `policy`, or the one its override gives (the same object for every subject of that override). */
  policyFor(subject: string): QuotaPolicy;
  /**
   * Decides and counts one request of `subject` (a client address, an API key...) in one
   * atomic step of the store, weighing `cost` units (default 1; a whole number up to the
   * smallest limit of the subject's policy, else a RangeError). Limiters sharing a store share subjects: give each
   * limiter's subjects a prefix of its own (`search:${ip}`). Rejects with StoreUnavailableError
   * when a remote store cannot answer.
   */
  check(subject: string, cost?: number): RateLimitCheckOf<S>;
  /**
   * What `check(subject, cost)` would answer now, counting nothing and striking nothing:
   * `decision.remaining` is each rule's room before the request, and `allowed` whether it fits.
   */
  get(subject: string, cost?: number): RateLimitCheckOf<S>;
  /**
   * Gives back the `cost` units (default 1, as checked) of a request `check` admitted for
   * `subject`, to the buckets that counted them: for answers that should not count, such as the
   * server's own failures. A refused check counted nothing and gets nothing back; a bucket gives
   * back at most what it still counts, never below zero (QuotaStore.refund).
   */
  refund(subject: string, check: RateLimitCheck, cost?: number): ReturnType<S['refund']>;
  /** Forgets `subject`: its counters, strikes and any ban (in tests, or after a mistake). */
  reset(subject: string): ReturnType<S['reset']>;
}

/** An sf-string's characters (RFC 9651), without the two that would need escaping. */
const FIELD_SAFE_NAME = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;

/** Whole seconds (RateLimit-Policy's `w`) cut into 60 sub-windows of whole milliseconds. */
const LIMITER_WINDOW_STEP_MS = 3_000;

/** The nearest windows a sliding rule takes, for the message that refuses `windowMs`. */
const insteadOf = (windowMs: number): string => {
  if (!Number.isFinite(windowMs) || windowMs <= LIMITER_WINDOW_STEP_MS) return `write ${LIMITER_WINDOW_STEP_MS}`;
  const below = Math.floor(windowMs / LIMITER_WINDOW_STEP_MS) * LIMITER_WINDOW_STEP_MS;
  return `write ${below} or ${below + LIMITER_WINDOW_STEP_MS}`;
};

/** Throws on what the store or the header fields could not honour. */
const assertLimiterPolicy = (policy: QuotaPolicy): void => {
  // Checked before the store's own rule (60 whole-millisecond sub-windows) so that the message names the limiter's, in its units.
  for (const { name, windowMs, kind } of policy.rules) {
    // A bucket has no sub-windows: any whole number of milliseconds, the store's own rule.
    if (kind === 'burst') continue;
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0 || windowMs % LIMITER_WINDOW_STEP_MS !== 0) {
      throw new RangeError(
        `rate limiter rule ${name}: windowMs must be a multiple of 3 s (3000, 60000, 3600000...): whole seconds cut into 60 sub-windows; ` +
          `${insteadOf(windowMs)}, or a burst rule ({ kind: 'burst', windowMs: ${Number.isSafeInteger(windowMs) && windowMs > 0 ? windowMs : 1000} }) for any whole number of milliseconds`,
      );
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

/** One policy's answers: the check it settles into, and the costs it can weigh. */
interface Decider {
  readonly policy: QuotaPolicy;
  settle(decision: QuotaDecision): RateLimitCheck;
  checkedCost(cost: number): number;
}

const deciderOf = (policy: QuotaPolicy): Decider => {
  const smallestLimit = Math.min(...policy.rules.map((rule) => rule.limit));
  return {
    policy,
    settle: (decision) => ({ allowed: decision.verdict === 'admitted', decision, headers: rateLimitHeaders(rateLimitFields(policy, decision)) }),
    checkedCost: (cost) => {
      if (!Number.isSafeInteger(cost) || cost < 1 || cost > smallestLimit) {
        throw new RangeError(`rate limiter: cost must be a whole number from 1 to ${smallestLimit} (the smallest limit), not ${String(cost)}`);
      }
      return cost;
    },
  };
};

/** `policy` with the limits `override` gives; a RangeError naming the override for a rule it has not or a limit out of range. */
function overriddenPolicy(policy: QuotaPolicy, { subjects, limits }: SubjectOverride, index: number): QuotaPolicy {
  const named = typeof subjects === 'string' && subjects !== '' ? JSON.stringify(subjects) : undefined;
  if (named === undefined) throw new RangeError(`rate limiter override ${index}: subjects must be a subject or a pattern with *, not ${JSON.stringify(subjects)}`);
  const given = typeof limits === 'object' && limits !== null ? Object.entries(limits) : [];
  if (given.length === 0) throw new RangeError(`rate limiter override ${named}: limits must name at least one rule: { ${policy.rules[0]?.name}: 100 }`);
  const ruleNames = policy.rules.map((rule) => rule.name);
  for (const [name, limit] of given) {
    if (!ruleNames.includes(name)) throw new RangeError(`rate limiter override ${named}: no rule is named ${JSON.stringify(name)} (the rules: ${ruleNames.join(', ')})`);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RULE_LIMIT) {
      throw new RangeError(`rate limiter override ${named}: the limit of ${name} must be an integer from 1 to ${MAX_RULE_LIMIT}, not ${String(limit)}`);
    }
  }
  const rules = policy.rules.map((rule) => (Object.hasOwn(limits, rule.name) ? Object.freeze({ ...rule, limit: limits[rule.name]! }) : rule));
  return Object.freeze({ ...policy, rules: Object.freeze(rules) });
}

/**
 * Who gets which decider: undefined when there are no overrides (every subject gets `base`,
 * and asks nothing). Each override's policy is built and checked here, once.
 */
function deciderPicker(base: Decider, overrides: readonly SubjectOverride[] | undefined): ((subject: string) => Decider) | undefined {
  if (overrides === undefined || overrides.length === 0) return undefined;
  const seen = new Set<string>();
  const entries = overrides.map((override, index) => {
    const decider = deciderOf(overriddenPolicy(base.policy, override, index));
    if (seen.has(override.subjects)) throw new RangeError(`rate limiter override ${JSON.stringify(override.subjects)}: given twice; the first would always win`);
    seen.add(override.subjects);
    return [override.subjects, decider] as const;
  });
  return subjectPicker(entries, base);
}

/**
 * An exact limiter of its own, of sliding windows and burst buckets, for an embedder's routes:
 * every rule at once, bans, the header fields of each answer, and other limits for the subjects
 * `overrides` name. Throws a RangeError here, at creation, on a rule, ban or override no store
 * could decide, never on a request. A limiter without overrides asks nothing of a subject but its counts.
 */
export const createRateLimiter = <S extends QuotaStore>({ rules, store, ban, overrides }: RateLimiterOptions<S>): RateLimiter<S> => {
  const ownRules = rules.map(
    ({ name, limit, windowMs, kind }): QuotaRule => Object.freeze(kind === undefined ? { name, limit, windowMs } : { name, limit, windowMs, kind }),
  );
  const policy: QuotaPolicy = Object.freeze(
    ban === undefined
      ? { rules: Object.freeze(ownRules) }
      : { rules: Object.freeze(ownRules), ban: Object.freeze({ strikes: ban.strikes, strikeWindowMs: ban.strikeWindowMs, banMs: ban.banMs }) },
  );
  assertLimiterPolicy(policy);
  const base = deciderOf(policy);
  const pick = deciderPicker(base, overrides);
  const answer = ({ settle }: Decider, decided: QuotaDecision | Promise<QuotaDecision>): RateLimitCheckOf<S> =>
    (decided instanceof Promise ? decided.then(settle) : settle(decided)) as RateLimitCheckOf<S>;
  const reset = (subject: string) => store.reset(subject) as ReturnType<S['reset']>;
  const refund = (subject: string, check: RateLimitCheck, cost = 1): ReturnType<S['refund']> => {
    const decider = pick === undefined ? base : pick(subject);
    const units = decider.checkedCost(cost);
    if (!check.allowed) return undefined as ReturnType<S['refund']>;
    return store.refund(subject, decider.policy, decider.policy.rules.map(() => units), check.decision) as ReturnType<S['refund']>;
  };
  if (pick === undefined) {
    return {
      policy,
      policyFor: () => policy,
      check: (subject, cost = 1) => answer(base, store.decide(subject, policy, base.checkedCost(cost))),
      get: (subject, cost = 1) => answer(base, store.peek(subject, policy, base.checkedCost(cost))),
      refund,
      reset,
    };
  }
  return {
    policy,
    policyFor: (subject) => pick(subject).policy,
    check: (subject, cost = 1) => {
      const decider = pick(subject);
      return answer(decider, store.decide(subject, decider.policy, decider.checkedCost(cost)));
    },
    get: (subject, cost = 1) => {
      const decider = pick(subject);
      return answer(decider, store.peek(subject, decider.policy, decider.checkedCost(cost)));
    },
    refund,
    reset,
  };
};
