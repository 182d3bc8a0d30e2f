import { burstFits, burstRemaining, burstResetTime, burstRetryTime, countedLevel, drainedLevel, isBurst, undrainedUnits } from './burst-bucket.js';
import { assertDecidablePolicy, assertRuleCosts, costUnder } from './decidable-policy.js';
import { type BanState, isBanned, registerRefusal, strikesCounting, strikesExpired } from './ban-policy.js';
import type { QuotaDecision } from './quota-decision.js';
import type { QuotaPolicy, QuotaRule, RuleCosts } from './quota-rule.js';
import {
  GRANULES_PER_WINDOW,
  advanceWindow,
  countRequest,
  countedRequests,
  granuleMs,
  oldestDropTime,
  refundRequest,
  retryTime,
  RING,
  windowCells,
} from './sliding-window-counter.js';

/**
 * Everything one subject's quota needs, mutated in place by `decideQuota`: the counters of
 * every rule of its policy in one typed array, the burst rules' levels, and the ban state.
 */
export interface QuotaState extends BanState {
  readonly cells: Uint32Array;
  /**
   * Each burst rule's level at `lastAt` (burst-bucket.ts), indexed like the rules: levels pass a
   * counter's 32 bits. Null for a policy without burst rules, which allocates nothing for them.
   */
  readonly levels: Float64Array | null;
  /** The policy last decided with: the store keeps a state only for policies of the same kinds and windows. */
  policy: QuotaPolicy;
  /** The latest time the counters were advanced to. */
  lastAt: number;
  /** When the store made the state: a request counted before it was another state's (one since forgotten), which a refund leaves alone. */
  readonly since: number;
  /** The decision of the current or last ban, worked out when it started and again under other limits (a plan change). */
  ban: QuotaDecision | null;
  /** The rules `ban` was worked out for. */
  banRules: readonly QuotaRule[];
}

/**
 * A subject that has never been seen (or was forgotten), made at `since` on the store's clock.
 * Throws on a rule no counter can hold: a configuration mistake.
 */
export const createQuotaState = (policy: QuotaPolicy, since = Number.NEGATIVE_INFINITY): QuotaState => {
  assertDecidablePolicy(policy);
  return {
    cells: windowCells(policy.rules.length),
    levels: policy.rules.some(isBurst) ? new Float64Array(policy.rules.length) : null,
    policy,
    lastAt: Number.NEGATIVE_INFINITY,
    since,
    refusedUntil: Number.NEGATIVE_INFINITY,
    bannedUntil: Number.NEGATIVE_INFINITY,
    strikes: null,
    ban: null,
    banRules: policy.rules,
  };
};

/** Whether `state` can decide for `policy`: rules of the same kinds and windows in the same order (limits may differ). */
export const stateFitsPolicy = (state: QuotaState, policy: QuotaPolicy): boolean => {
  const held = state.policy.rules;
  const rules = policy.rules;
  if (held === rules) return true;
  if (held.length !== rules.length) return false;
  for (let i = 0; i < rules.length; i++) {
    if (held[i]!.windowMs !== rules[i]!.windowMs || isBurst(held[i]!) !== isBurst(rules[i]!)) return false;
  }
  return true;
};

/**
 * True when forgetting the subject changes no future decision: not banned, no Retry-After
 * running, no strike that can still count, every window rule's newest bucket (so every bucket)
 * has stopped being counted and every burst bucket has drained. Reads no window counter, so
 * sweeping stays cheap.
 */
export const isQuotaStateIdle = (state: QuotaState, now: number): boolean => {
  if (state.bannedUntil > now || state.refusedUntil > now || !strikesExpired(state, state.policy.ban, now)) {
    return false;
  }
  const rules = state.policy.rules;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    if (isBurst(rule)) {
      if (drainedLevel(state.levels![i]!, now - state.lastAt, rule.limit) !== 0) return false;
      continue;
    }
    const granule = granuleMs(rule.windowMs);
    if ((Math.floor(state.lastAt / granule) + GRANULES_PER_WINDOW + 1) * granule > now) return false;
  }
  return true;
};

/**
 * What a ban answers under `rules` until it ends, worked out when it starts and again when a
 * plan change brings other limits: nothing before the ban ends, and from then on what the
 * counters allow. Nothing is counted during a ban, so the counters as they stand then tell
 * when each rule admits again: a rule still exhausted at the ban's end resets when it admits,
 * and Retry-After points to the latest of these among enforced rules, so a client that obeys
 * it is admitted.
 */
const banDecision = (state: QuotaState, rules: readonly QuotaRule[], now: number): QuotaDecision => {
  const ruleCount = rules.length;
  const { cells, bannedUntil } = state;
  const resetAt = new Array<number>(ruleCount);
  let retryAt = bannedUntil;
  for (let i = 0; i < ruleCount; i++) {
    const rule = rules[i]!;
    let reset = bannedUntil;
    if (isBurst(rule)) {
      // The level at lastAt: nothing drains it out of turn, and nothing is counted during a ban.
      const level = state.levels![i]!;
      if (!burstFits(rule, level, 1)) reset = Math.max(reset, burstRetryTime(rule, level, state.lastAt, 1));
    } else if (countedRequests(cells, i) >= rule.limit) {
      const granule = granuleMs(rule.windowMs);
      // A ban tells when one request fits again, whatever the cost of the one refused.
      const ruleRetry = retryTime(cells, i, ruleCount, Math.floor(state.lastAt / granule), granule, rule.limit, 1);
      if (ruleRetry > reset) reset = ruleRetry;
    }
    resetAt[i] = reset;
    // A shadow rule never refuses, so it never holds the client back past the ban.
    if (reset > retryAt && !isShadow(rule)) retryAt = reset;
  }
  return { verdict: 'banned', decidedAt: now, remaining: new Array<number>(ruleCount).fill(0), resetAt, retryAt };
};

/** Works out the ban's answer under `rules` and keeps it for the rest of the ban. */
const keepBanDecision = (state: QuotaState, rules: readonly QuotaRule[], now: number): QuotaDecision => {
  const decision = banDecision(state, rules, now);
  state.ban = decision;
  state.banRules = rules;
  return decision;
};

/** Whether `rules` have the limits and modes of `held`, rules of the same windows: the ban's answer depends on nothing else. */
const sameLimits = (held: readonly QuotaRule[], rules: readonly QuotaRule[]): boolean => {
  if (held === rules) return true;
  for (let i = 0; i < rules.length; i++) {
    if (held[i]!.limit !== rules[i]!.limit || isShadow(held[i]!) !== isShadow(rules[i]!)) return false;
  }
  return true;
};

const isShadow = (rule: QuotaRule): boolean => rule.mode === 'shadow';

/** The ban's decision as of `now`; its arrays are shared by every answer of the ban, read only. */
const duringBan = (ban: QuotaDecision, now: number): QuotaDecision => ({ ...ban, decidedAt: now });

/**
 * Advances every rule of `state` to `now` (never back: `state.lastAt` is where it counts) and
 * tells whether a request of `cost` fits every enforced rule it matches.
 */
const advanceAll = (state: QuotaState, rules: readonly QuotaRule[], now: number, cost: number | RuleCosts): boolean => {
  const cells = state.cells;
  const last = state.lastAt;
  // A clock that steps back keeps counting in the newest bucket rather than rewriting the past.
  const at = now > last ? now : last;
  state.lastAt = at;
  let fits = true;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    if (isBurst(rule)) {
      const levels = state.levels!;
      const level = drainedLevel(levels[i]!, at - last, rule.limit);
      levels[i] = level;
      const units = costUnder(cost, i);
      if (units !== 0 && !burstFits(rule, level, units) && !isShadow(rule)) fits = false;
      continue;
    }
    const granule = granuleMs(rule.windowMs);
    advanceWindow(cells, i, rules.length, Math.floor(last / granule), Math.floor(at / granule));
    const units = costUnder(cost, i);
    if (units !== 0 && countedRequests(cells, i) + units > rule.limit && !isShadow(rule)) fits = false;
  }
  return fits;
};

/**
 * Each rule's room and reset at `at`, counting nothing; when a request of `cost` fits every
 * enforced rule it matches if nothing else is counted (`now` when it fits already); and the
 * shadow rules it matches that have no room for it.
 */
const standing = (state: QuotaState, rules: readonly QuotaRule[], now: number, at: number, cost: number | RuleCosts): Omit<QuotaDecision, 'verdict' | 'decidedAt'> => {
  const ruleCount = rules.length;
  const cells = state.cells;
  const remaining = new Array<number>(ruleCount);
  const resetAt = new Array<number>(ruleCount);
  let retryAt = now;
  let shadowed: number[] | undefined;
  for (let i = 0; i < ruleCount; i++) {
    const rule = rules[i]!;
    const units = costUnder(cost, i);
    if (isBurst(rule)) {
      const level = state.levels![i]!;
      remaining[i] = burstRemaining(rule, level);
      resetAt[i] = burstResetTime(rule, level, at, now);
      if (units !== 0 && !burstFits(rule, level, units)) {
        if (isShadow(rule)) (shadowed ??= []).push(i);
        else {
          const ruleRetry = burstRetryTime(rule, level, at, units);
          if (ruleRetry > retryAt) retryAt = ruleRetry;
        }
      }
      continue;
    }
    const granule = granuleMs(rule.windowMs);
    const current = Math.floor(at / granule);
    const counted = countedRequests(cells, i);
    remaining[i] = counted < rule.limit ? rule.limit - counted : 0;
    resetAt[i] = counted === 0 ? now : oldestDropTime(cells, i, current, granule);
    if (units !== 0 && counted + units > rule.limit) {
      if (isShadow(rule)) (shadowed ??= []).push(i);
      else {
        const ruleRetry = retryTime(cells, i, ruleCount, current, granule, rule.limit, units);
        if (ruleRetry > retryAt) retryAt = ruleRetry;
      }
    }
  }
  return shadowed === undefined ? { remaining, resetAt, retryAt } : { remaining, resetAt, retryAt, shadowed };
};

/**
 * Decides one request of the subject at `now` and records it in `state`. `cost`: its units
 * under each rule (RuleCosts, 0 where it does not match the rule), or one number for every
 * rule (1 unless the caller weighs requests); each from 0 to the rule's limit, else a
 * RangeError. Admitted only if every enforced rule it matches has room for its cost there,
 * and then counted by every rule it matches, shadow rules included; a shadow rule without
 * room never refuses, it is reported in `shadowed`. A refusal counts in none, and its retry
 * is when every refusing rule has room. A banned subject gets nothing and can get nothing
 * before the ban ends: remaining 0, retry no earlier than its end. A policy of other limits
 * or modes (a plan change) keeps what was counted, the strikes and any ban, and decides by
 * its own from now on, the ban's answer included.
 */
export const decideQuota = (state: QuotaState, policy: QuotaPolicy, now: number, cost: number | RuleCosts = 1): QuotaDecision => {
  const rules = policy.rules;
  const ruleCount = rules.length;
  // 1 is within every decidable rule's limit: the usual request checks nothing.
  if (cost !== 1) assertRuleCosts(rules, cost);
  state.policy = policy;
  if (isBanned(state, now) && state.ban !== null) {
    return sameLimits(state.banRules, rules) ? duringBan(state.ban, now) : keepBanDecision(state, rules, now);
  }

  if (advanceAll(state, rules, now, cost)) {
    const at = state.lastAt;
    const cells = state.cells;
    const remaining = new Array<number>(ruleCount);
    const resetAt = new Array<number>(ruleCount);
    let shadowed: number[] | undefined;
    // Only a shadow rule can lack room here: the enforced ones all had it.
    for (let i = 0; i < ruleCount; i++) {
      const rule = rules[i]!;
      const units = costUnder(cost, i);
      if (isBurst(rule)) {
        const levels = state.levels!;
        let level = levels[i]!;
        if (units !== 0) {
          if (!burstFits(rule, level, units)) (shadowed ??= []).push(i);
          level = countedLevel(rule, level, units);
          levels[i] = level;
        }
        remaining[i] = burstRemaining(rule, level);
        resetAt[i] = burstResetTime(rule, level, at, now);
        continue;
      }
      const granule = granuleMs(rule.windowMs);
      const current = Math.floor(at / granule);
      let counted = countedRequests(cells, i);
      if (units !== 0) {
        if (counted + units > rule.limit) (shadowed ??= []).push(i);
        countRequest(cells, i, ruleCount, current, units);
        counted += units;
      }
      remaining[i] = counted < rule.limit ? rule.limit - counted : 0;
      resetAt[i] = counted === 0 ? now : oldestDropTime(cells, i, current, granule);
    }
    if (shadowed === undefined && at === now) return { verdict: 'admitted', decidedAt: now, remaining, resetAt, retryAt: now };
    return {
      verdict: 'admitted',
      decidedAt: now,
      remaining,
      resetAt,
      retryAt: now,
      ...(shadowed === undefined ? {} : { shadowed }),
      ...(at === now ? {} : { countedAt: at }),
    };
  }

  const refused = standing(state, rules, now, state.lastAt, cost);
  if (policy.ban !== undefined && registerRefusal(state, policy.ban, now, refused.retryAt)) {
    return keepBanDecision(state, rules, now);
  }
  return { verdict: 'rate_limited', decidedAt: now, ...refused };
};

/**
 * What a request of `cost` (as `decideQuota`'s) would be answered at `now`, counting nothing
 * and striking nothing: the verdict, each rule's room before it (`remaining`), its reset, when
 * it would be admitted, the shadow rules without room for it, and the strikes that would count
 * towards a ban. `state` is left as it was, so a peek never changes a later decision.
 */
export const peekQuota = (state: QuotaState, policy: QuotaPolicy, now: number, cost: number | RuleCosts = 1): QuotaDecision => {
  assertRuleCosts(policy.rules, cost);
  if (isBanned(state, now) && state.ban !== null) {
    const ban = sameLimits(state.banRules, policy.rules) ? state.ban : banDecision(state, policy.rules, now);
    // The ban emptied the strikes, and nothing strikes during it.
    return { ...ban, decidedAt: now, strikes: 0 };
  }
  const probe: QuotaState = { ...state, cells: state.cells.slice(), levels: state.levels === null ? null : state.levels.slice(), policy };
  const fits = advanceAll(probe, policy.rules, now, cost);
  return {
    verdict: fits ? 'admitted' : 'rate_limited',
    decidedAt: now,
    ...standing(probe, policy.rules, now, probe.lastAt, cost),
    strikes: strikesCounting(state, policy.ban, now),
  };
};

/**
 * Gives back `units` (under each rule, as a request's RuleCosts) of a request this state
 * counted at `countedAt` (QuotaDecision.countedAt, or its decidedAt). Each rule's units go back
 * to the bucket that counted them, floor(countedAt / granule), if that bucket is still counted
 * at `now` (or at the latest time counted to, when the clock stepped back), and at most what
 * it holds: no count goes below zero, no other bucket changes, and what a rule keeps in any
 * rolling window stays within its limit. A burst rule's level loses what of the units would not
 * have drained by then were they drained from `countedAt` on (undrainedUnits): never more than
 * the request still holds in the bucket, so it never admits more than it would have without
 * the request. A request counted before the state was made (by one
 * since forgotten) or after its latest count (never by it) gets nothing back. Strikes, a ban
 * and its answer, and the Retry-After told stand: what was given back is there once the ban ends.
 */
export const refundQuota = (state: QuotaState, policy: QuotaPolicy, now: number, units: RuleCosts, countedAt: number): void => {
  const rules = policy.rules;
  assertRuleCosts(rules, units);
  const last = state.lastAt;
  if (countedAt < state.since || countedAt > last) return;
  const at = now > last ? now : last;
  for (let i = 0; i < rules.length; i++) {
    if (units[i] === 0) continue;
    const rule = rules[i]!;
    if (isBurst(rule)) {
      // The level as of lastAt: less by what is given back at `at`, it drains to what it would be then.
      const levels = state.levels!;
      const back = undrainedUnits(rule, units[i]!, at - countedAt);
      levels[i] = levels[i]! > back ? levels[i]! - back : 0;
      continue;
    }
    const granule = granuleMs(rule.windowMs);
    const bucket = Math.floor(countedAt / granule);
    // Dropped out of the window by now: what it held is counted nowhere any more.
    if (bucket <= Math.floor(at / granule) - RING) continue;
    refundRequest(state.cells, i, rules.length, bucket, units[i]!);
  }
};
