import type { Plan } from '../domain/quota/plan.js';
import type { ApiKeyRegistry } from '../ports/api-key-registry.js';

/**
 * The keys of this instance's configuration first, then the shared store. Configured keys
 * keep working whatever happens to the store's data (a Redis restarted without persistence
 * forgets what it held); keys registered at run time go to the shared store.
 */
export class LayeredApiKeyRegistry implements ApiKeyRegistry {
  constructor(
    private readonly configured: ApiKeyRegistry,
    private readonly shared: ApiKeyRegistry,
  ) {}

  planOf(keyDigest: string): Plan | undefined | Promise<Plan | undefined> {
    const plan = this.configured.planOf(keyDigest);
    if (plan instanceof Promise) return plan.then((found) => found ?? this.shared.planOf(keyDigest));
    return plan ?? this.shared.planOf(keyDigest);
  }

  register(keyDigest: string, plan: Plan): Promise<void> {
    return this.shared.register(keyDigest, plan);
  }
}
