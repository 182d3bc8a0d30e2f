import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { QuotaPolicy, QuotaRule } from '../../src/domain/quota/quota-rule.js';

/**
 * The quota algorithm written the plain way, for comparison: every admitted unit's timestamp is
 * kept, a rule counts those whose bucket floor(a / g) is one of the 61 buckets ending at
 * floor(t / g), and strikes are a list. Times must not go back.
 */
export class ReferenceQuota {
  /** One timestamp per admitted unit: a request of cost c is c of them. */
  private admitted: number[] = [];
  private strikes: number[] = [];
  private refusedUntil = Number.NEGATIVE_INFINITY;
  private bannedUntil = Number.NEGATIVE_INFINITY;

  decide(policy: QuotaPolicy, now: number, cost = 1): QuotaDecision {
    const { rules } = policy;
    if (this.bannedUntil > now) return banned(rules, this.admitted, now, this.bannedUntil);
    const counted = rules.map((rule) => countedBy(rule, this.admitted, now));
    if (fitsAll(rules, counted, cost)) {
      for (let unit = 0; unit < cost; unit++) this.admitted.push(now);
      return {
        verdict: 'admitted',
        decidedAt: now,
        remaining: rules.map((rule, i) => rule.limit - counted[i]!.length - cost),
        resetAt: rules.map((rule, i) => dropTime(rule, counted[i]![0] ?? now)),
        retryAt: now,
      };
    }
    const decision = standing(rules, counted, now, cost, 'rate_limited');
    const ban = policy.ban;
    if (ban === undefined) return decision;
    const isStrike = now < this.refusedUntil;
    this.refusedUntil = Math.max(this.refusedUntil, now + 1000 * Math.ceil((decision.retryAt - now) / 1000));
    if (!isStrike) return decision;
    this.strikes = [...this.strikes, now].slice(-ban.strikes);
    if (this.strikes.length === ban.strikes && this.strikes[0]! > now - ban.strikeWindowMs) {
      this.bannedUntil = now + ban.banMs;
      this.strikes = [];
      return banned(rules, this.admitted, now, this.bannedUntil);
    }
    return decision;
  }

  /**
   * What `decide` would answer a request of `cost`, changing nothing: `remaining` is the room
   * before it, `strikes` those within the strike window (none during a ban, which empties them).
   */
  peek(policy: QuotaPolicy, now: number, cost = 1): QuotaDecision {
    const { rules, ban } = policy;
    if (this.bannedUntil > now) return { ...banned(rules, this.admitted, now, this.bannedUntil), strikes: 0 };
    const counted = rules.map((rule) => countedBy(rule, this.admitted, now));
    const strikes = ban === undefined ? 0 : this.strikes.filter((at) => at > now - ban.strikeWindowMs).length;
    return { ...standing(rules, counted, now, cost, fitsAll(rules, counted, cost) ? 'admitted' : 'rate_limited'), strikes };
  }
}

const fitsAll = (rules: readonly QuotaRule[], counted: readonly number[][], cost: number): boolean =>
  counted.every((list, i) => list.length + cost <= rules[i]!.limit);

/** Each rule's room and reset, and when `cost` units fit every rule: when enough of the oldest units have dropped. */
const standing = (rules: readonly QuotaRule[], counted: readonly number[][], now: number, cost: number, verdict: QuotaDecision['verdict']): QuotaDecision => {
  let retryAt = now;
  rules.forEach((rule, i) => {
    const list = counted[i]!;
    if (list.length + cost > rule.limit) retryAt = Math.max(retryAt, dropTime(rule, list[list.length - rule.limit + cost - 1]!));
  });
  return {
    verdict,
    decidedAt: now,
    remaining: rules.map((rule, i) => Math.max(0, rule.limit - counted[i]!.length)),
    resetAt: rules.map((rule, i) => (counted[i]!.length === 0 ? now : dropTime(rule, counted[i]![0]!))),
    retryAt,
  };
};

const granule = (rule: QuotaRule): number => rule.windowMs / 60;
const bucket = (rule: QuotaRule, at: number): number => Math.floor(at / granule(rule));
/** When the bucket holding `at` stops being counted. */
const dropTime = (rule: QuotaRule, at: number): number => (bucket(rule, at) + 61) * granule(rule);
/** Oldest first. */
const countedBy = (rule: QuotaRule, admitted: readonly number[], now: number): number[] =>
  admitted.filter((a) => bucket(rule, a) >= bucket(rule, now) - 60);

/**
 * Nothing before `bannedUntil`; after it, a rule admits once the request `limit` places
 * back from the newest admitted one has stopped being counted.
 */
const banned = (rules: readonly QuotaRule[], admitted: readonly number[], now: number, bannedUntil: number): QuotaDecision => {
  const resetAt = rules.map((rule) =>
    admitted.length < rule.limit ? bannedUntil : Math.max(bannedUntil, dropTime(rule, admitted[admitted.length - rule.limit]!)),
  );
  return {
    verdict: 'banned',
    decidedAt: now,
    remaining: rules.map(() => 0),
    resetAt,
    retryAt: Math.max(bannedUntil, ...resetAt),
  };
};
