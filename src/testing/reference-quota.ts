import type { QuotaDecision } from '../domain/quota/quota-decision.js';
import type { QuotaPolicy, QuotaRule, RuleCosts } from '../domain/quota/quota-rule.js';
import { ReferenceBucket } from './reference-bucket.js';

/**
 * The quota algorithm written the plain way, for comparison: every unit a window rule counted
 * keeps its timestamp, a window rule counts those whose bucket floor(a / g) is one of the 61
 * buckets ending at floor(t / g), a burst rule is GCRA's theoretical arrival time
 * (ReferenceBucket), and strikes are a list. A request's cost is its units under each rule (one
 * number: under every rule; 0: the rule neither decides nor counts it); it is admitted when
 * every enforced rule it matches has room, and then every rule it matches counts it. A shadow
 * rule never refuses: one without room is reported in `shadowed`. A clock that steps back
 * counts at the latest time a decision counted at, and answers at its own time. A refund takes
 * back units of the bucket a window rule counted the request in, while the rule still counts
 * that bucket, and no more than it holds; from a burst rule, what of the request's units has not
 * drained yet were it drained from the moment it was counted.
 */
export class ReferenceQuota {
  /** Per window rule, one timestamp per unit it counted: a request of cost c under the rule is c of them. */
  private units: number[][] = [];
  /** Per burst rule, its bucket. */
  private buckets: ReferenceBucket[] = [];
  private strikes: number[] = [];
  /** The latest time a decision outside a ban was made at: no rule counts earlier. */
  private latest = Number.NEGATIVE_INFINITY;
  private refusedUntil = Number.NEGATIVE_INFINITY;
  private bannedUntil = Number.NEGATIVE_INFINITY;
  /** The current ban's answer and the limits and modes it was worked out under: a ban answers what it found when it started. */
  private banAnswer: { readonly terms: string; readonly decision: QuotaDecision } | undefined;

  /** `since`: when the store made this subject's state; a request counted before it was another state's. */
  constructor(private readonly since = Number.NEGATIVE_INFINITY) {}

  decide(policy: QuotaPolicy, now: number, cost: number | RuleCosts = 1): QuotaDecision {
    const { rules } = policy;
    if (this.bannedUntil > now) return this.banned(rules, now);
    const costs = costsOf(rules, cost);
    const at = Math.max(now, this.latest);
    if (this.fitsEnforced(rules, costs, at)) {
      const decision = this.standing(rules, costs, at, now, 'admitted');
      rules.forEach((rule, i) => this.count(rule, i, costs[i]!, at));
      this.advance(rules, at);
      return {
        ...decision,
        remaining: rules.map((rule, i) => this.remaining(rule, i, at)),
        resetAt: rules.map((rule, i) => this.resetAt(rule, i, at, now)),
        ...(at === now ? {} : { countedAt: at }),
      };
    }
    const decision = this.standing(rules, costs, at, now, 'rate_limited');
    this.advance(rules, at);
    const ban = policy.ban;
    if (ban === undefined) return decision;
    const isStrike = now < this.refusedUntil;
    this.refusedUntil = Math.max(this.refusedUntil, now + 1000 * Math.ceil((decision.retryAt - now) / 1000));
    if (!isStrike) return decision;
    this.strikes = [...this.strikes, now].slice(-ban.strikes);
    if (this.strikes.length === ban.strikes && this.strikes[0]! > now - ban.strikeWindowMs) {
      this.bannedUntil = now + ban.banMs;
      this.banAnswer = undefined;
      this.strikes = [];
      return this.banned(rules, now);
    }
    return decision;
  }

  /**
   * What `decide` would answer a request of `cost`, changing nothing: `remaining` is the room
   * before it, `strikes` those within the strike window (none during a ban, which empties them).
   */
  peek(policy: QuotaPolicy, now: number, cost: number | RuleCosts = 1): QuotaDecision {
    const { rules, ban } = policy;
    if (this.bannedUntil > now) return { ...this.banned(rules, now, false), strikes: 0 };
    const costs = costsOf(rules, cost);
    const at = Math.max(now, this.latest);
    const strikes = ban === undefined ? 0 : this.strikes.filter((struck) => struck > now - ban.strikeWindowMs).length;
    return { ...this.standing(rules, costs, at, now, this.fitsEnforced(rules, costs, at) ? 'admitted' : 'rate_limited'), strikes };
  }

  /**
   * Gives back, under each rule, `units[i]` of a request counted at `countedAt`, as of `now` (the
   * latest time counted at, if later); nothing of a request counted before this state was made
   * or after its latest count.
   */
  refund(policy: QuotaPolicy, now: number, units: RuleCosts, countedAt: number): void {
    if (countedAt < this.since || countedAt > this.latest) return;
    const at = Math.max(now, this.latest);
    policy.rules.forEach((rule, i) => {
      if (units[i] === 0) return;
      if (isBurst(rule)) {
        this.bucketOf(i).refund(rule, units[i]!, countedAt, at);
        return;
      }
      const b = bucket(rule, countedAt);
      if (b < bucket(rule, at) - 60) return;
      let left = units[i]!;
      this.units[i] = this.unitsOf(i).filter((unit) => {
        if (left === 0 || bucket(rule, unit) !== b) return true;
        left--;
        return false;
      });
    });
  }

  private unitsOf(i: number): number[] {
    while (this.units.length <= i) this.units.push([]);
    return this.units[i]!;
  }

  private bucketOf(i: number): ReferenceBucket {
    while (this.buckets.length <= i) this.buckets.push(new ReferenceBucket());
    return this.buckets[i]!;
  }

  /** The last `counted` of each window rule, kept while its time, window and units are the same: a decision asks several times. */
  private countedMemo: { at: number; windowMs: number; units: number; list: number[] }[] = [];

  /** A window rule's units still counted at `at`, oldest first. */
  private counted(rule: QuotaRule, i: number, at: number): number[] {
    const units = this.unitsOf(i);
    const memo = this.countedMemo[i];
    if (memo?.at === at && memo.windowMs === rule.windowMs && memo.units === units.length) return memo.list;
    const list = units.filter((a) => bucket(rule, a) >= bucket(rule, at) - 60);
    this.countedMemo[i] = { at, windowMs: rule.windowMs, units: units.length, list };
    return list;
  }

  /** Whether rule i has no room for `cost` units: it matches the request and would pass its limit. */
  private full(rule: QuotaRule, i: number, cost: number, now: number): boolean {
    if (cost === 0) return false;
    return isBurst(rule) ? !this.bucketOf(i).fits(rule, cost, now) : this.counted(rule, i, now).length + cost > rule.limit;
  }

  private fitsEnforced(rules: readonly QuotaRule[], costs: readonly number[], now: number): boolean {
    return rules.every((rule, i) => isShadow(rule) || !this.full(rule, i, costs[i]!, now));
  }

  private remaining(rule: QuotaRule, i: number, now: number): number {
    return isBurst(rule) ? this.bucketOf(i).remaining(rule, now) : Math.max(0, rule.limit - this.counted(rule, i, now).length);
  }

  /** `now` when the rule counts nothing at `at`. */
  private resetAt(rule: QuotaRule, i: number, at: number, now: number): number {
    if (isBurst(rule)) return this.bucketOf(i).resetAt(rule, at, now);
    const counted = this.counted(rule, i, at);
    return counted.length === 0 ? now : dropTime(rule, counted[0]!);
  }

  /** When `cost` units fit rule i again, if nothing else is counted: enough of its oldest units dropped, or its bucket drained. */
  private retryAt(rule: QuotaRule, i: number, cost: number, now: number): number {
    if (isBurst(rule)) return this.bucketOf(i).retryAt(rule, cost, now);
    const counted = this.counted(rule, i, now);
    return dropTime(rule, counted[counted.length - rule.limit + cost - 1]!);
  }

  private count(rule: QuotaRule, i: number, cost: number, now: number): void {
    if (isBurst(rule)) {
      if (cost > 0) this.bucketOf(i).count(rule, cost, now);
      return;
    }
    for (let unit = 0; unit < cost; unit++) this.unitsOf(i).push(now);
  }

  private advance(rules: readonly QuotaRule[], at: number): void {
    this.latest = at;
    rules.forEach((rule, i) => {
      if (isBurst(rule)) this.bucketOf(i).advance(rule, at);
    });
  }

  /**
   * Each rule's room and reset at `at` before the request, when its costs fit every enforced
   * rule it matches, and the shadow rules without room; answered at `now`.
   */
  private standing(rules: readonly QuotaRule[], costs: readonly number[], at: number, now: number, verdict: QuotaDecision['verdict']): QuotaDecision {
    let retryAt = now;
    const shadowed: number[] = [];
    rules.forEach((rule, i) => {
      if (!this.full(rule, i, costs[i]!, at)) return;
      if (isShadow(rule)) shadowed.push(i);
      else retryAt = Math.max(retryAt, this.retryAt(rule, i, costs[i]!, at));
    });
    const decision: QuotaDecision = {
      verdict,
      decidedAt: now,
      remaining: rules.map((rule, i) => this.remaining(rule, i, at)),
      resetAt: rules.map((rule, i) => this.resetAt(rule, i, at, now)),
      retryAt,
    };
    return shadowed.length === 0 ? decision : { ...decision, shadowed };
  }

  /**
   * Nothing before `bannedUntil`; after it, a window rule admits one unit once the unit `limit`
   * places back from its newest of those counted at the last decision has stopped being
   * counted, a burst rule once one unit fits its bucket as the last decision left it. Retry-After waits for the enforced rules. Worked out
   * when the ban starts and again under other limits or modes only (a clock stepping back into
   * a ban finds it as it started). A peek (`keep` false) keeps nothing: a refund during the ban
   * may have changed the units since it started.
   */
  private banned(rules: readonly QuotaRule[], now: number, keep = true): QuotaDecision {
    const terms = JSON.stringify(rules.map((rule) => [rule.limit, isShadow(rule)]));
    let answer = this.banAnswer;
    if (answer?.terms !== terms) {
      answer = { terms, decision: this.banDecision(rules) };
      if (keep) this.banAnswer = answer;
    }
    return { ...answer.decision, decidedAt: now };
  }

  private banDecision(rules: readonly QuotaRule[]): QuotaDecision {
    const bannedUntil = this.bannedUntil;
    const resetAt = rules.map((rule, i) => {
      if (isBurst(rule)) return Math.max(bannedUntil, this.bucketOf(i).banRetryAt(rule) ?? bannedUntil);
      const list = this.counted(rule, i, this.latest);
      return list.length < rule.limit ? bannedUntil : Math.max(bannedUntil, dropTime(rule, list[list.length - rule.limit]!));
    });
    return {
      verdict: 'banned',
      decidedAt: bannedUntil,
      remaining: rules.map(() => 0),
      resetAt,
      retryAt: Math.max(bannedUntil, ...resetAt.filter((_, i) => !isShadow(rules[i]!))),
    };
  }
}

const isShadow = (rule: QuotaRule): boolean => rule.mode === 'shadow';
const isBurst = (rule: QuotaRule): boolean => rule.kind === 'burst';
const costsOf = (rules: readonly QuotaRule[], cost: number | RuleCosts): number[] => rules.map((_, i) => (typeof cost === 'number' ? cost : cost[i]!));

const granule = (rule: QuotaRule): number => rule.windowMs / 60;
const bucket = (rule: QuotaRule, at: number): number => Math.floor(at / granule(rule));
/** When the bucket holding `at` stops being counted. */
const dropTime = (rule: QuotaRule, at: number): number => (bucket(rule, at) + 61) * granule(rule);

const windowsOf = (policy: QuotaPolicy): string => policy.rules.map((rule) => `${rule.kind ?? 'window'}:${rule.windowMs}`).join(',');

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
