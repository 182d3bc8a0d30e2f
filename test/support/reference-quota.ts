import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { QuotaPolicy, QuotaRule, RuleCosts } from '../../src/domain/quota/quota-rule.js';

/**
 * The quota algorithm written the plain way, for comparison: every unit a rule counted keeps its
 * timestamp, a rule counts those whose bucket floor(a / g) is one of the 61 buckets ending at
 * floor(t / g), and strikes are a list. A request's cost is its units under each rule (one
 * number: under every rule; 0: the rule neither decides nor counts it); it is admitted when
 * every enforced rule it matches has room, and then every rule it matches counts it. A shadow
 * rule never refuses: one without room is reported in `shadowed`. A clock that steps back
 * counts at the latest time counted at; a refund takes back units of the bucket a request was
 * counted in, while the rule still counts that bucket, and no more than it holds. A ban answers
 * what the units allowed when it started, worked out again only under other limits or modes.
 */
export class ReferenceQuota {
  /** Per rule, one timestamp per unit it counted: a request of cost c under the rule is c of them. */
  private units: number[][] = [];
  private strikes: number[] = [];
  private refusedUntil = Number.NEGATIVE_INFINITY;
  private bannedUntil = Number.NEGATIVE_INFINITY;
  /** The latest time counted at: a decision outside a ban moves it on, never back. */
  private countedUpTo = Number.NEGATIVE_INFINITY;
  /** The current ban's answer and the rules it was worked out for. */
  private banAnswer: { readonly rules: readonly QuotaRule[]; readonly decision: QuotaDecision } | undefined;

  /** `since`: when the store made this subject's state; a request counted before it was another state's. */
  constructor(private readonly since = Number.NEGATIVE_INFINITY) {}

  decide(policy: QuotaPolicy, now: number, cost: number | RuleCosts = 1): QuotaDecision {
    const { rules } = policy;
    if (this.bannedUntil > now) return this.duringBan(rules, now, true);
    this.countedUpTo = Math.max(this.countedUpTo, now);
    const at = this.countedUpTo;
    const counted = rules.map((rule, i) => countedBy(rule, this.unitsOf(rules)[i]!, at));
    const costs = rules.map((_, i) => (typeof cost === 'number' ? cost : cost[i]!));
    if (fitsEnforced(rules, counted, costs)) {
      const decision = standing(rules, counted, now, costs, 'admitted');
      rules.forEach((rule, i) => {
        for (let unit = 0; unit < costs[i]!; unit++) this.unitsOf(rules)[i]!.push(at);
        counted[i] = countedBy(rule, this.unitsOf(rules)[i]!, at);
      });
      return {
        ...decision,
        remaining: rules.map((rule, i) => Math.max(0, rule.limit - counted[i]!.length)),
        resetAt: rules.map((rule, i) => (counted[i]!.length === 0 ? now : dropTime(rule, counted[i]![0]!))),
        ...(at === now ? {} : { countedAt: at }),
      };
    }
    const decision = standing(rules, counted, now, costs, 'rate_limited');
    const ban = policy.ban;
    if (ban === undefined) return decision;
    const isStrike = now < this.refusedUntil;
    this.refusedUntil = Math.max(this.refusedUntil, now + 1000 * Math.ceil((decision.retryAt - now) / 1000));
    if (!isStrike) return decision;
    this.strikes = [...this.strikes, now].slice(-ban.strikes);
    if (this.strikes.length === ban.strikes && this.strikes[0]! > now - ban.strikeWindowMs) {
      this.bannedUntil = now + ban.banMs;
      this.strikes = [];
      this.banAnswer = undefined;
      return this.duringBan(rules, now, true);
    }
    return decision;
  }

  /**
   * What `decide` would answer a request of `cost`, changing nothing: `remaining` is the room
   * before it, `strikes` those within the strike window (none during a ban, which empties them).
   */
  peek(policy: QuotaPolicy, now: number, cost: number | RuleCosts = 1): QuotaDecision {
    const { rules, ban } = policy;
    if (this.bannedUntil > now) return { ...this.duringBan(rules, now, false), strikes: 0 };
    const at = Math.max(this.countedUpTo, now);
    const counted = rules.map((rule, i) => countedBy(rule, this.unitsOf(rules)[i]!, at));
    const costs = rules.map((_, i) => (typeof cost === 'number' ? cost : cost[i]!));
    const strikes = ban === undefined ? 0 : this.strikes.filter((at) => at > now - ban.strikeWindowMs).length;
    return { ...standing(rules, counted, now, costs, fitsEnforced(rules, counted, costs) ? 'admitted' : 'rate_limited'), strikes };
  }

  /**
   * Takes back, under each rule, up to `units[i]` of the units counted in the bucket of
   * `countedAt`, if the rule still counts that bucket now (at the latest time counted at, if
   * later); nothing of a request counted before this state was made or after its latest count.
   */
  refund(policy: QuotaPolicy, now: number, units: RuleCosts, countedAt: number): void {
    if (countedAt < this.since || countedAt > this.countedUpTo) return;
    const at = Math.max(now, this.countedUpTo);
    policy.rules.forEach((rule, i) => {
      const b = bucket(rule, countedAt);
      if (b < bucket(rule, at) - 60) return;
      let left = units[i]!;
      const kept: number[] = [];
      for (const unit of this.unitsOf(policy.rules)[i]!) {
        if (left > 0 && bucket(rule, unit) === b) left--;
        else kept.push(unit);
      }
      this.units[i] = kept;
    });
  }

  /**
   * The ban's answer under `rules`: the one kept when worked out for their limits and modes,
   * else worked out from the units now (and kept, unless `keep` is false).
   */
  private duringBan(rules: readonly QuotaRule[], now: number, keep: boolean): QuotaDecision {
    let answer = this.banAnswer;
    const sameTerms = answer?.rules.every((rule, i) => rule.limit === rules[i]!.limit && isShadow(rule) === isShadow(rules[i]!)) === true;
    if (answer === undefined || !sameTerms) {
      // The units counted at the latest time counted at: a clock stepped back since counts no dropped one again.
      const counted = this.unitsOf(rules).map((units, i) => countedBy(rules[i]!, units, this.countedUpTo));
      answer = { rules, decision: banned(rules, counted, now, this.bannedUntil) };
      if (keep) this.banAnswer = answer;
    }
    return { ...answer.decision, decidedAt: now };
  }

  /** Each rule's units, a list per rule of the policy. */
  private unitsOf(rules: readonly QuotaRule[]): number[][] {
    while (this.units.length < rules.length) this.units.push([]);
    return this.units;
  }
}

const isShadow = (rule: QuotaRule): boolean => rule.mode === 'shadow';

/** Whether rule i has no room for the request: it matches it and its count would pass the limit. */
const full = (rules: readonly QuotaRule[], counted: readonly number[][], costs: readonly number[], i: number): boolean =>
  costs[i]! > 0 && counted[i]!.length + costs[i]! > rules[i]!.limit;

const fitsEnforced = (rules: readonly QuotaRule[], counted: readonly number[][], costs: readonly number[]): boolean =>
  rules.every((rule, i) => isShadow(rule) || !full(rules, counted, costs, i));

/**
 * Each rule's room and reset before the request, when its costs fit every enforced rule it
 * matches (when enough of the oldest units have dropped), and the shadow rules without room.
 */
const standing = (
  rules: readonly QuotaRule[],
  counted: readonly number[][],
  now: number,
  costs: readonly number[],
  verdict: QuotaDecision['verdict'],
): QuotaDecision => {
  let retryAt = now;
  const shadowed: number[] = [];
  rules.forEach((rule, i) => {
    if (!full(rules, counted, costs, i)) return;
    if (isShadow(rule)) shadowed.push(i);
    else {
      const list = counted[i]!;
      retryAt = Math.max(retryAt, dropTime(rule, list[list.length - rule.limit + costs[i]! - 1]!));
    }
  });
  const decision: QuotaDecision = {
    verdict,
    decidedAt: now,
    remaining: rules.map((rule, i) => Math.max(0, rule.limit - counted[i]!.length)),
    resetAt: rules.map((rule, i) => (counted[i]!.length === 0 ? now : dropTime(rule, counted[i]![0]!))),
    retryAt,
  };
  return shadowed.length === 0 ? decision : { ...decision, shadowed };
};

const granule = (rule: QuotaRule): number => rule.windowMs / 60;
const bucket = (rule: QuotaRule, at: number): number => Math.floor(at / granule(rule));
/** When the bucket holding `at` stops being counted. */
const dropTime = (rule: QuotaRule, at: number): number => (bucket(rule, at) + 61) * granule(rule);
/** Oldest first. */
const countedBy = (rule: QuotaRule, units: readonly number[], now: number): number[] =>
  units.filter((a) => bucket(rule, a) >= bucket(rule, now) - 60);

/**
 * Nothing before `bannedUntil`; after it, a rule admits one unit once the unit `limit` places
 * back from its newest has stopped being counted. Retry-After waits for the enforced rules.
 */
const banned = (rules: readonly QuotaRule[], units: readonly (readonly number[])[], now: number, bannedUntil: number): QuotaDecision => {
  const resetAt = rules.map((rule, i) => {
    const list = units[i]!;
    return list.length < rule.limit ? bannedUntil : Math.max(bannedUntil, dropTime(rule, list[list.length - rule.limit]!));
  });
  return {
    verdict: 'banned',
    decidedAt: now,
    remaining: rules.map(() => 0),
    resetAt,
    retryAt: Math.max(bannedUntil, ...resetAt.filter((_, i) => !isShadow(rules[i]!))),
  };
};

const windowsOf = (policy: QuotaPolicy): string => policy.rules.map((rule) => rule.windowMs).join(',');

/**
 * The reference as a store keeps it: one ReferenceQuota per subject, made when the subject is
 * first decided for; a policy of other windows starts the subject over and a reset forgets it,
 * so a refund reaches only the state that counted its request.
 */
export class ReferenceQuotaStore {
  private readonly subjects = new Map<string, { readonly windows: string; readonly quota: ReferenceQuota }>();

  decide(subject: string, policy: QuotaPolicy, now: number, cost: number | RuleCosts = 1): QuotaDecision {
    let held = this.subjects.get(subject);
    if (held?.windows !== windowsOf(policy)) {
      held = { windows: windowsOf(policy), quota: new ReferenceQuota(now) };
      this.subjects.set(subject, held);
    }
    return held.quota.decide(policy, now, cost);
  }

  peek(subject: string, policy: QuotaPolicy, now: number, cost: number | RuleCosts = 1): QuotaDecision {
    const held = this.subjects.get(subject);
    return (held?.windows === windowsOf(policy) ? held.quota : new ReferenceQuota()).peek(policy, now, cost);
  }

  reset(subject: string): void {
    this.subjects.delete(subject);
  }

  refund(subject: string, policy: QuotaPolicy, now: number, units: RuleCosts, admitted: QuotaDecision): void {
    const held = this.subjects.get(subject);
    if (admitted.verdict !== 'admitted' || held?.windows !== windowsOf(policy)) return;
    held.quota.refund(policy, now, units, admitted.countedAt ?? admitted.decidedAt);
  }
}
