import { isExpired, type ApiKeyGrant, type ApiKeyRegistry } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';

interface CachedGrant {
  readonly grant: ApiKeyGrant | undefined;
  readonly expiresAt: number;
}

/**
 * Remembers a remote registry's answers for `ttlMs`, so a request costs one round trip to the
 * store (its quota decision) instead of two, and a flood of unknown keys does not reach it.
 * A changed grant or a revoked key takes effect within `ttlMs` on every instance; an expired
 * key at once: a cached grant's expiry is checked against the clock at each lookup.
 */
export class CachedApiKeyRegistry implements ApiKeyRegistry {
  private readonly cache = new Map<string, CachedGrant>();

  constructor(
    private readonly registry: ApiKeyRegistry,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  grantOf(keyDigest: string): ApiKeyGrant | undefined | Promise<ApiKeyGrant | undefined> {
    const now = this.clock.now();
    const cached = this.cache.get(keyDigest);
    if (cached !== undefined && cached.expiresAt > now) return current(cached.grant, now);
    const found = this.registry.grantOf(keyDigest);
    if (!(found instanceof Promise)) return this.remember(keyDigest, found, now);
    return found.then((grant) => this.remember(keyDigest, grant, now));
  }

  async register(keyDigest: string, grant: ApiKeyGrant): Promise<void> {
    await this.registry.register(keyDigest, grant);
    this.cache.delete(keyDigest);
  }

  private remember(keyDigest: string, grant: ApiKeyGrant | undefined, now: number): ApiKeyGrant | undefined {
    // Oldest first out: a Map iterates in insertion order, and a refreshed entry is re-inserted.
    this.cache.delete(keyDigest);
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next();
      if (oldest.done !== true) this.cache.delete(oldest.value);
    }
    this.cache.set(keyDigest, { grant, expiresAt: now + this.ttlMs });
    return current(grant, now);
  }
}

const current = (grant: ApiKeyGrant | undefined, now: number): ApiKeyGrant | undefined =>
  grant === undefined || grant.expiresAt === undefined || !isExpired(grant, now) ? grant : undefined;
