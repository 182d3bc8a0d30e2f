import type { ApiKeyGrant, ApiKeyRegistry } from '../../ports/api-key-registry.js';

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

  grantOf(keyDigest: string): ApiKeyGrant | undefined | Promise<ApiKeyGrant | undefined> {
    const grant = this.configured.grantOf(keyDigest);
    if (grant instanceof Promise) return grant.then((found) => found ?? this.shared.grantOf(keyDigest));
    return grant ?? this.shared.grantOf(keyDigest);
  }

  register(keyDigest: string, grant: ApiKeyGrant): Promise<void> {
    return this.shared.register(keyDigest, grant);
  }
}
