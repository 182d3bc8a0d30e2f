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

/** A QuotaStore that applies a QuotaOutagePolicy when the primary store throws StoreUnavailableError. */
export class QuotaOutageFallback implements QuotaStore {
  constructor(
    private readonly primary: QuotaStore,
    private readonly policy: QuotaOutagePolicy,
    private readonly local: QuotaStore,
    private readonly clock: Clock,
  ) {}

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

  private withFallback(ask: (store: QuotaStore) => QuotaDecision | Promise<QuotaDecision>, policy: QuotaPolicy): QuotaDecision | Promise<QuotaDecision> {
    try {
      const decision = ask(this.primary);
      if (decision instanceof Promise) return decision.catch((error: unknown) => this.fallBack(error, ask, policy));
      return decision;
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
    if (this.policy === 'local') return ask(this.local);
    const now = this.clock.now();
    // Nothing is counted while admitting blindly, so nothing is reported as spent.
    return {
      verdict: 'admitted',
      decidedAt: now,
      remaining: policy.rules.map((rule) => rule.limit),
      resetAt: policy.rules.map(() => now),
      retryAt: now,
    };
  }
}
