import type { Clock } from '../../ports/clock.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { StrikeRecorder } from '../../ports/strike-recorder.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import { costUnder } from '../../domain/quota/decidable-policy.js';
import type { QuotaDecision } from '../../domain/quota/quota-decision.js';
import type { QuotaPolicy, RuleCosts } from '../../domain/quota/quota-rule.js';

export interface LocalRefusalsOptions {
  /**
   * The longest a strike answered here waits before the store counts it: flushes run half of
   * it after a strike, and refusals are answered here only until this long before their
   * Retry-After ends, so the store holds every strike before it can admit again. Also the
   * longest a refusal under a ban rule is answered here after the store last said the subject
   * was not banned: past it, the strike goes to the store at once and is answered with the ban
   * it reports, so a ban another instance stored is answered here within this lag.
   */
  readonly strikeLagMs: number;
  /** Most subjects remembered; the longest remembered is forgotten first. */
  readonly maxEntries: number;
  /**
   * The longest a refusal is answered here before the store is asked again, whatever it said:
   * an operator's reset (`petstore keys unban`) gives quota back, which the store alone knows.
   * Absent: until the store's answer could change by time alone.
   */
  readonly recheckMs?: number;
  /** Runs `flush` once, `delayMs` from now (an unref'd timer in a server; a test runs it by hand). */
  readonly schedule: (flush: () => void, delayMs: number) => void;
  /** A flush that failed other than by an outage (an outage only loses its strikes, which can only delay a ban). */
  readonly onFlushError: (error: unknown) => void;
}

/** A refusal the store gave, answered here again until `until`. Times of this instance's clock unless said. */
interface Refusal {
  readonly policy: QuotaPolicy;
  /** The refused request's cost: a rate_limited refusal is answered again only to a request of the same cost. */
  readonly cost: number | RuleCosts;
  readonly decision: QuotaDecision;
  /** The store's clock minus this one's, measured when the question was sent, so it errs late, never early. */
  readonly offset: number;
  /** When the question was sent: a clock now earlier has stepped back, and the entry is dropped. */
  readonly from: number;
  readonly until: number;
  /** The subject's last strikes, oldest first, on the store's clock: the store's when it answered, then this instance's. */
  readonly strikes: number[];
  /** When the store was last asked about the subject (the decision, then each strike sent), on this instance's clock. */
  askedAt: number;
  /** Strikes sent at once, past the lag, while the store answers: the strikes meanwhile wait for its word too. */
  asking: Promise<QuotaDecision | undefined> | undefined;
}

interface PendingStrikes {
  readonly policy: QuotaPolicy;
  /** `[at, retryAt, ...]` on the store's clock, as StrikeRecorder takes them. */
  readonly strikes: number[];
}

/**
 * A QuotaStore that answers a subject's refusals itself while the store's answer cannot
 * change, so refused and banned clients cost a remote store no round trip:
 * - a ban until its end, when the decision tells it (some rule's window, plus its last
 *   bucket and the strike lag, fits in the ban, so that rule resets exactly when it ends);
 *   nothing but time or an operator's reset lifts a ban (see `recheckMs`), and nothing is counted during one;
 * - a rate_limited refusal until its retryAt (less `strikeLagMs` under a ban rule): other
 *   instances can only spend quota, never give it back, so the store refuses until then too,
 *   with the same retryAt. Each such refusal is a strike (it comes before the Retry-After the
 *   first gave), counted here on the strikes the store reported with that refusal: the one
 *   that completes the ban is sent at once and answered with the ban the store starts. The
 *   others reach the store within `strikeLagMs` through the StrikeRecorder; what another
 *   instance answered reaches this one's count only through the store, so only a ban another
 *   instance completed may lag here, never an admission, and by `strikeLagMs` at most: a
 *   strike that comes longer than that after the store was last asked goes to it at once,
 *   and is answered with the ban it reports.
 * A rate_limited refusal is answered only to a request of the same cost under every rule: its
 * refusing rules have no room for that cost until its retryAt, while another request (one
 * that does not match them, or costs less there) may fit. A ban refuses every request.
 * A different policy object for the subject asks the store again. A refund gives quota back,
 * so the subject's refusal is forgotten when it is sent and again once the store has it.
 */
export class LocalRefusals implements QuotaStore {
  readonly #store: QuotaStore;
  readonly #recorder: StrikeRecorder;
  readonly #clock: Clock;
  readonly #options: LocalRefusalsOptions;
  readonly #refusals = new Map<string, Refusal>();
  #pending = new Map<string, PendingStrikes>();
  #flushScheduled = false;
  readonly #banEnds = new WeakMap<QuotaPolicy, boolean>();

  constructor(store: QuotaStore, recorder: StrikeRecorder, clock: Clock, options: LocalRefusalsOptions) {
    if (options.recheckMs !== undefined && (!Number.isSafeInteger(options.recheckMs) || options.recheckMs < 1)) {
      throw new RangeError('local refusals: recheckMs must be a positive integer');
    }
    for (const field of ['strikeLagMs', 'maxEntries'] as const) {
      if (!Number.isSafeInteger(options[field]) || options[field] < 1) throw new RangeError(`local refusals: ${field} must be a positive integer`);
    }
    this.#store = store;
    this.#recorder = recorder;
    this.#clock = clock;
    this.#options = options;
  }

  /** Subjects remembered now (expired ones go when next asked about, or when the oldest are evicted). */
  get size(): number {
    return this.#refusals.size;
  }

  decide(subject: string, policy: QuotaPolicy, cost: number | RuleCosts = 1): QuotaDecision | Promise<QuotaDecision> {
    const refusal = this.#refusals.get(subject);
    if (refusal !== undefined) {
      const now = this.#clock.now();
      if (refusal.policy === policy && now < refusal.until && now >= refusal.from) {
        if (refusal.decision.verdict === 'banned' || sameCost(refusal.cost, cost)) return this.#answer(subject, refusal, now);
      }
      this.#refusals.delete(subject);
    }
    const pending = this.#pending.get(subject);
    if (pending === undefined) return this.#ask(subject, policy, cost);
    // The store counts this subject's strikes before it decides for it again.
    this.#pending.delete(subject);
    return this.#record(subject, pending).then(() => this.decide(subject, policy, cost));
  }

  peek(subject: string, policy: QuotaPolicy, cost: number | RuleCosts = 1): QuotaDecision | Promise<QuotaDecision> {
    const pending = this.#pending.get(subject);
    if (pending === undefined) return this.#store.peek(subject, policy, cost);
    // The store counts the strikes answered here before it reports them (and any ban they start).
    this.#pending.delete(subject);
    return this.#record(subject, pending).then(() => this.#store.peek(subject, policy, cost));
  }

  /** Forgets the subject here (its remembered refusal, its strikes not yet sent) and in the store. */
  reset(subject: string): void | Promise<void> {
    this.#refusals.delete(subject);
    this.#pending.delete(subject);
    return this.#store.reset(subject);
  }

  /**
   * The store's refund. A refusal remembered before the store has it may have no reason left
   * (a ban's answer, or a retry, may come earlier), so the subject's is forgotten now, and again
   * when the store has it: a refusal the store answered just before it may be remembered since.
   */
  refund(subject: string, policy: QuotaPolicy, units: RuleCosts, admitted: QuotaDecision): void | Promise<void> {
    this.#refusals.delete(subject);
    const refunded = this.#store.refund(subject, policy, units, admitted);
    if (!(refunded instanceof Promise)) return refunded;
    return refunded.finally(() => this.#refusals.delete(subject));
  }

  /** Sends every strike counted so far; resolves once the store has them (or failed to take them). */
  flush(): Promise<void> {
    this.#flushScheduled = false;
    const pending = this.#pending;
    if (pending.size === 0) return Promise.resolve();
    this.#pending = new Map();
    const sent: Promise<void>[] = [];
    for (const [subject, strikes] of pending) sent.push(this.#record(subject, strikes).then(() => undefined));
    return Promise.all(sent).then(() => undefined);
  }

  /**
   * The remembered answer. A refusal under a ban rule is a strike: counted on the store's strikes
   * as it last told them, so the strike that completes the ban is seen here, and only it waits for
   * the store, which counts the pending strikes and answers the ban.
   */
  #answer(subject: string, refusal: Refusal, now: number): QuotaDecision | Promise<QuotaDecision> {
    const decidedAt = now + refusal.offset;
    const answer: QuotaDecision = { ...refusal.decision, decidedAt };
    const { verdict, retryAt } = answer;
    const ban = refusal.policy.ban;
    if (verdict !== 'rate_limited' || ban === undefined) return answer;
    this.#countStrike(subject, refusal.policy, decidedAt, retryAt);
    const strikes = refusal.strikes;
    strikes.push(decidedAt);
    if (strikes.length > ban.strikes) strikes.shift();
    if (strikes.length < ban.strikes || strikes[0]! <= decidedAt - ban.strikeWindowMs) {
      // Another instance may have stored a ban since the store last said there was none.
      if (refusal.asking !== undefined) return refusal.asking.then((banned) => banned ?? answer);
      if (now - refusal.askedAt < this.#options.strikeLagMs) return answer;
      const pending = this.#pending.get(subject);
      if (pending === undefined) return answer;
      this.#pending.delete(subject);
      const asking = this.#record(subject, pending);
      refusal.asking = asking;
      return asking.then((banned) => {
        refusal.asking = undefined;
        return banned ?? answer;
      });
    }
    const pending = this.#pending.get(subject);
    this.#pending.delete(subject);
    this.#refusals.delete(subject);
    if (pending === undefined) return answer;
    return this.#record(subject, pending).then((banned) => banned ?? answer);
  }

  #countStrike(subject: string, policy: QuotaPolicy, at: number, retryAt: number): void {
    let pending = this.#pending.get(subject);
    if (pending === undefined) {
      pending = { policy, strikes: [] };
      this.#pending.set(subject, pending);
    }
    pending.strikes.push(at, retryAt);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      this.#options.schedule(() => void this.flush(), this.#options.strikeLagMs / 2);
    }
  }

  #ask(subject: string, policy: QuotaPolicy, cost: number | RuleCosts): QuotaDecision | Promise<QuotaDecision> {
    const sentAt = this.#clock.now();
    if (policy.ban !== undefined) {
      // The strikes come with a refusal, so the strikes answered here count on from them.
      return this.#recorder
        .decideReportingStrikes(subject, policy, cost)
        .then(({ decision, strikes }) => this.#remember(subject, policy, cost, decision, sentAt, [...strikes]));
    }
    const decided = this.#store.decide(subject, policy, cost);
    if (decided instanceof Promise) return decided.then((decision) => this.#remember(subject, policy, cost, decision, sentAt));
    return this.#remember(subject, policy, cost, decided, sentAt);
  }

  /** Sends a subject's strikes; resolves with the ban when the subject is banned once the store has them. */
  #record(subject: string, { policy, strikes }: PendingStrikes): Promise<QuotaDecision | undefined> {
    const sentAt = this.#clock.now();
    return this.#recorder.recordStrikes(subject, policy, strikes).then(
      (ban) => {
        // Banned now (by these strikes or another instance's): the ban replaces a cached refusal.
        if (ban !== undefined) {
          this.#refusals.delete(subject);
          // A ban answers every cost alike.
          this.#remember(subject, policy, 1, ban, sentAt);
        } else this.#asked(subject, policy, sentAt);
        return ban;
      },
      (error: unknown) => {
        // Strikes lost to an outage only delay a ban; the refusal is answered here until the lag passes again.
        this.#asked(subject, policy, sentAt);
        if (!(error instanceof StoreUnavailableError)) this.#options.onFlushError(error);
        return undefined;
      },
    );
  }

  /** The store answered strikes sent at `sentAt` with no ban (or could not answer): the refusal stands until the lag passes again. */
  #asked(subject: string, policy: QuotaPolicy, sentAt: number): void {
    const refusal = this.#refusals.get(subject);
    if (refusal !== undefined && refusal.policy === policy && sentAt > refusal.askedAt) refusal.askedAt = sentAt;
  }

  #remember(subject: string, policy: QuotaPolicy, cost: number | RuleCosts, decision: QuotaDecision, sentAt: number, strikes: number[] = []): QuotaDecision {
    const storeUntil = this.#answerableUntil(policy, decision);
    if (storeUntil === undefined) return decision;
    const offset = decision.decidedAt - sentAt;
    const until = Math.min(storeUntil - offset, sentAt + (this.#options.recheckMs ?? Number.POSITIVE_INFINITY));
    if (until <= sentAt) return decision;
    const refusals = this.#refusals;
    if (refusals.size >= this.#options.maxEntries && !refusals.has(subject)) {
      const oldest = refusals.keys().next();
      if (oldest.done !== true) refusals.delete(oldest.value);
    }
    refusals.set(subject, { policy, cost, decision, offset, from: sentAt, until, strikes, askedAt: sentAt, asking: undefined });
    return decision;
  }

  /** Until when, on the store's clock, the store would answer `decision` again; undefined: ask each time. */
  #answerableUntil(policy: QuotaPolicy, decision: QuotaDecision): number | undefined {
    switch (decision.verdict) {
      case 'admitted':
        return undefined;
      case 'rate_limited':
        return policy.ban === undefined ? decision.retryAt : decision.retryAt - this.#options.strikeLagMs;
      case 'banned':
        // Every reset is the ban's end or later, and a rule whose retry cannot outlast the ban resets at its end.
        return this.#banEndKnown(policy) ? Math.min(...decision.resetAt) : undefined;
    }
  }

  /**
   * A rule's retry is at most a window and one bucket after the ban's start (its newest bucket
   * dropping; a burst rule's, a unit's refill, windowMs / limit), and the store may start a ban
   * up to the strike lag after its last strike.
   */
  #banEndKnown(policy: QuotaPolicy): boolean {
    let known = this.#banEnds.get(policy);
    if (known === undefined) {
      const { ban } = policy;
      known = ban !== undefined && policy.rules.some((rule) => rule.windowMs + rule.windowMs / 60 + this.#options.strikeLagMs <= ban.banMs);
      this.#banEnds.set(policy, known);
    }
    return known;
  }
}

/** Whether two requests cost the same under every rule (a number: that cost under each). */
const sameCost = (a: number | RuleCosts, b: number | RuleCosts): boolean => {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return false;
  const length = typeof a === 'number' ? (b as RuleCosts).length : a.length;
  if (typeof b !== 'number' && b.length !== length) return false;
  for (let i = 0; i < length; i++) if (costUnder(a, i) !== costUnder(b, i)) return false;
  return true;
};
