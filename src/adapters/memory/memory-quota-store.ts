import { countedAtOf, type QuotaDecision } from '../../domain/quota/quota-decision.js';
import {
  type QuotaState,
  createQuotaState,
  decideQuota,
  isQuotaStateIdle,
  peekQuota,
  refundQuota,
  stateFitsPolicy,
} from '../../domain/quota/quota-engine.js';
import type { QuotaPolicy, RuleCosts } from '../../domain/quota/quota-rule.js';
import type { Clock } from '../../ports/clock.js';
import type { QuotaStore } from '../../ports/quota-store.js';

interface MemoryQuotaStoreOptions {
  /** Least time, on the store's clock, between the starts of two sweeps over all subjects. */
  readonly sweepIntervalMs?: number;
  /** While a sweep runs, a step runs every this many decisions... */
  readonly sweepEvery?: number;
  /** ...and looks at this many subjects: more than one per decision, so a sweep outpaces new subjects and ends. */
  readonly sweepBatch?: number;
}

/**
 * One process's quotas: decides synchronously, so no request can slip between a check and
 * its count. Subjects whose state no longer affects any decision are swept a few at a time
 * on the decision path (no timer to keep the process alive), so memory follows the subjects
 * active within the longest window plus a sweep interval.
 */
export class MemoryQuotaStore implements QuotaStore {
  readonly #clock: Clock;
  readonly #states = new Map<string, QuotaState>();
  readonly #sweepIntervalMs: number;
  readonly #sweepEvery: number;
  readonly #sweepBatch: number;
  #untilSweep: number;
  #nextSweepAt = Number.NEGATIVE_INFINITY;
  #sweepCursor: Iterator<[string, QuotaState]> | undefined;

  constructor(clock: Clock, options: MemoryQuotaStoreOptions = {}) {
    this.#clock = clock;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.#sweepEvery = options.sweepEvery ?? 64;
    this.#sweepBatch = options.sweepBatch ?? 128;
    this.#untilSweep = this.#sweepEvery;
  }

  /** Subjects currently held. */
  get size(): number {
    return this.#states.size;
  }

  decide(subject: string, policy: QuotaPolicy, cost: number | RuleCosts = 1): QuotaDecision {
    const now = this.#clock.now();
    let state = this.#states.get(subject);
    if (state === undefined || !stateFitsPolicy(state, policy)) {
      state = createQuotaState(policy, now);
      this.#states.set(subject, state);
    }
    const decision = decideQuota(state, policy, now, cost);
    if (--this.#untilSweep === 0) {
      this.#untilSweep = this.#sweepEvery;
      this.#sweep(now);
    }
    return decision;
  }

  peek(subject: string, policy: QuotaPolicy, cost: number | RuleCosts = 1): QuotaDecision {
    const state = this.#states.get(subject);
    return peekQuota(state === undefined || !stateFitsPolicy(state, policy) ? createQuotaState(policy) : state, policy, this.#clock.now(), cost);
  }

  reset(subject: string): void {
    this.#states.delete(subject);
  }

  refund(subject: string, policy: QuotaPolicy, units: RuleCosts, admitted: QuotaDecision): void {
    const state = this.#states.get(subject);
    const countedAt = countedAtOf(admitted);
    // Forgotten, or kept for other windows: the state that counted the request is gone.
    if (state === undefined || countedAt === undefined || !stateFitsPolicy(state, policy)) return;
    refundQuota(state, policy, this.#clock.now(), units, countedAt);
  }

  #sweep(now: number): void {
    if (this.#sweepCursor === undefined) {
      if (now < this.#nextSweepAt) return;
      this.#nextSweepAt = now + this.#sweepIntervalMs;
      this.#sweepCursor = this.#states.entries();
    }
    for (let seen = 0; seen < this.#sweepBatch; seen++) {
      const next = this.#sweepCursor.next();
      if (next.done === true) {
        this.#sweepCursor = undefined;
        return;
      }
      const [subject, state] = next.value;
      if (isQuotaStateIdle(state, now)) this.#states.delete(subject);
    }
  }
}
