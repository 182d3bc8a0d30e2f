import type { Plan } from '../domain/quota/plan.js';
import type { ApiKeyRegistry } from '../ports/api-key-registry.js';
import type { Clock } from '../ports/clock.js';

interface CachedPlan {
  readonly plan: Plan | undefined;
  readonly expiresAt: number;
}

/**
 * Remembers a remote registry's answers for `ttlMs`, so a request costs one round trip to the
 * store (its quota decision) instead of two, and a flood of unknown keys does not reach it.
 * A changed plan or a revoked key takes effect within `ttlMs` on every instance.
 */
export class CachedApiKeyRegistry implements ApiKeyRegistry {
  private readonly cache = new Map<string, CachedPlan>();

  constructor(
    private readonly registry: ApiKeyRegistry,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  planOf(keyDigest: string): Plan | undefined | Promise<Plan | undefined> {
    const now = this.clock.now();
    const cached = this.cache.get(keyDigest);
    if (cached !== undefined && cached.expiresAt > now) return cached.plan;
    const found = this.registry.planOf(keyDigest);
    if (!(found instanceof Promise)) return this.remember(keyDigest, found, now);
    return found.then((plan) => this.remember(keyDigest, plan, now));
  }

  async register(keyDigest: string, plan: Plan): Promise<void> {
    await this.registry.register(keyDigest, plan);
    this.cache.delete(keyDigest);
  }

  private remember(keyDigest: string, plan: Plan | undefined, now: number): Plan | undefined {
    // Oldest first out: a Map iterates in insertion order, and a refreshed entry is re-inserted.
    this.cache.delete(keyDigest);
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next();
      if (oldest.done !== true) this.cache.delete(oldest.value);
    }
    this.cache.set(keyDigest, { plan, expiresAt: now + this.ttlMs });
    return plan;
  }
}
