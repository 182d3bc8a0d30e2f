import type { QuotaStore } from '../../ports/quota-store.js';
import type { Clock } from '../../ports/clock.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { QuotaDecision } from '../../domain/quota/quota-decision.js';
import type { QuotaPolicy, RuleCosts } from '../../domain/quota/quota-rule.js';

/**
 * What the quota check does while its store is unreachable:
 * - `local`: decide with an in-process store (exact per instance, not across instances);
 * - `allow`: admit without counting (availability over enforcement);
 * - `deny`: refuse with 503 — never a 429, which would blame the client.
 */
export type QuotaOutagePolicy = 'local' | 'allow' | 'deny';

/**
 * A QuotaStore that applies a QuotaOutagePolicy when the primary store throws StoreUnavailableError.
 * A refund goes where its request was decided: the local store's admissions to it, a blind
 * admission nowhere (it counted nothing), the primary's to the primary, failing as it fails
 * (a refund that cannot reach its store is lost: never given where it was not counted).
 */
export class QuotaOutageFallback implements QuotaStore {
  /** The admissions the local store decided, and those made blindly: only outages add to them. */
  readonly #decidedLocally = new WeakSet<QuotaDecision>();
  readonly #blind = new WeakSet<QuotaDecision>();
  #serving = false;

  /** `onServing`: told true when the fallback starts deciding in the store's place, false when the store answers again. */
  constructor(
    private readonly primary: QuotaStore,
    private readonly policy: QuotaOutagePolicy,
    private readonly local: QuotaStore,
    private readonly clock: Clock,
    private readonly onServing: (serving: boolean) => void = () => {},
  ) {}

  /** Whether the last decision was the fallback's (local or allow): quotas are then per instance, or not counted. */
  get serving(): boolean {
    return this.#serving;
  }

  #servingNow(serving: boolean): void {
    if (this.#serving === serving) return;
    this.#serving = serving;
    this.onServing(serving);
  }

  decide(subject: string, policy: QuotaPolicy, cost: number | RuleCosts = 1): QuotaDecision | Promise<QuotaDecision> {
    return this.withFallback((store) => store.decide(subject, policy, cost), policy);
  }

  peek(subject: string, policy: QuotaPolicy, cost: number | RuleCosts = 1): QuotaDecision | Promise<QuotaDecision> {
    return this.withFallback((store) => store.peek(subject, policy, cost), policy);
  }

  /** Both stores forget the subject: the local one may have decided for it during an outage. */
  async reset(subject: string): Promise<void> {
    await this.local.reset(subject);
    await this.primary.reset(subject);
  }

  refund(subject: string, policy: QuotaPolicy, units: RuleCosts, admitted: QuotaDecision): void | Promise<void> {
    if (this.#blind.has(admitted)) return;
    return (this.#decidedLocally.has(admitted) ? this.local : this.primary).refund(subject, policy, units, admitted);
  }

  private withFallback(ask: (store: QuotaStore) => QuotaDecision | Promise<QuotaDecision>, policy: QuotaPolicy): QuotaDecision | Promise<QuotaDecision> {
    try {
      const decision = ask(this.primary);
      if (!(decision instanceof Promise)) return decision;
      // Only while the fallback serves is an answer of the store watched for: no more work per decision otherwise.
      const answered = this.#serving ? decision.then((value) => (this.#servingNow(false), value)) : decision;
      return answered.catch((error: unknown) => this.fallBack(error, ask, policy));
    } catch (error) {
      return this.fallBack(error, ask, policy);
    }
  }

  private fallBack(
    error: unknown,
    ask: (store: QuotaStore) => QuotaDecision | Promise<QuotaDecision>,
    policy: QuotaPolicy,
  ): QuotaDecision | Promise<QuotaDecision> {
    if (!(error instanceof StoreUnavailableError) || this.policy === 'deny') throw error;
    this.#servingNow(true);
    if (this.policy === 'local') {
      const decided = ask(this.local);
      if (!(decided instanceof Promise)) return this.#madeLocally(decided);
      return decided.then((decision) => this.#madeLocally(decision));
    }
    const now = this.clock.now();
    // Nothing is counted while admitting blindly, so nothing is reported as spent.
    const blind: QuotaDecision = {
      verdict: 'admitted',
      decidedAt: now,
      remaining: policy.rules.map((rule) => rule.limit),
      resetAt: policy.rules.map(() => now),
      retryAt: now,
    };
    this.#blind.add(blind);
    return blind;
  }

  #madeLocally(decision: QuotaDecision): QuotaDecision {
    this.#decidedLocally.add(decision);
    return decision;
  }
}
