import type { Plan } from '../../domain/quota/plan.js';
import type { ApiKeyRegistry } from '../../ports/api-key-registry.js';

/** Keeps a frozen copy of each plan, so neither the registering code nor a reader can alter another's view. */
const frozenCopy = (plan: Plan): Plan =>
  Object.freeze({ name: plan.name, rules: Object.freeze(plan.rules.map((rule) => Object.freeze({ ...rule }))) });

export class MemoryApiKeyRegistry implements ApiKeyRegistry {
  private readonly plans = new Map<string, Plan>();

  // Synchronous: the lookup is on every request's path, and a promise there costs a microtask.
  planOf(keyDigest: string): Plan | undefined {
    return this.plans.get(keyDigest);
  }

  async register(keyDigest: string, plan: Plan): Promise<void> {
    this.plans.set(keyDigest, frozenCopy(plan));
  }
}
