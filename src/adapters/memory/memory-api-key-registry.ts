import type { ApiKeyGrant, ApiKeyRegistry } from '../../ports/api-key-registry.js';

/** Keeps a frozen copy of each grant, so neither the registering code nor a reader can alter another's view. */
const frozenCopy = ({ plan, role }: ApiKeyGrant): ApiKeyGrant =>
  Object.freeze({
    plan: Object.freeze({ name: plan.name, rules: Object.freeze(plan.rules.map((rule) => Object.freeze({ ...rule }))) }),
    role,
  });

export class MemoryApiKeyRegistry implements ApiKeyRegistry {
  private readonly grants = new Map<string, ApiKeyGrant>();

  // Synchronous and returning the stored object: the lookup is on every request's path, and a
  // promise there costs a microtask.
  grantOf(keyDigest: string): ApiKeyGrant | undefined {
    return this.grants.get(keyDigest);
  }

  async register(keyDigest: string, grant: ApiKeyGrant): Promise<void> {
    this.grants.set(keyDigest, frozenCopy(grant));
  }
}
