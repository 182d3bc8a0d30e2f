import { describe, expect, it } from 'vitest';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { CachedApiKeyRegistry } from '../../src/app/cached-api-key-registry.js';
import { STANDARD_PLANS, type Plan } from '../../src/domain/quota/plan.js';
import type { ApiKeyRegistry } from '../../src/ports/api-key-registry.js';
import { ManualClock } from '../support/manual-clock.js';

/** Counts the lookups that reach the backing registry. */
class CountingRegistry implements ApiKeyRegistry {
  lookups = 0;
  constructor(private readonly inner: ApiKeyRegistry) {}
  async planOf(digest: string): Promise<Plan | undefined> {
    this.lookups++;
    return this.inner.planOf(digest);
  }
  register(digest: string, plan: Plan): Promise<void> {
    return this.inner.register(digest, plan);
  }
}

describe('CachedApiKeyRegistry', () => {
  it('answers repeated lookups, known and unknown keys alike, from memory until the TTL passes', async () => {
    const clock = new ManualClock(0);
    const backing = new CountingRegistry(new MemoryApiKeyRegistry());
    await backing.register('known', STANDARD_PLANS.pro);
    const cached = new CachedApiKeyRegistry(backing, clock, 5_000, 100);

    expect(await cached.planOf('known')).toEqual(STANDARD_PLANS.pro);
    expect(await cached.planOf('unknown')).toBeUndefined();
    expect(cached.planOf('known')).toEqual(STANDARD_PLANS.pro);
    expect(cached.planOf('unknown')).toBeUndefined();
    expect(backing.lookups).toBe(2);

    clock.advance(5_000);
    await cached.planOf('known');
    expect(backing.lookups).toBe(3);
  });

  it('sees a key registered through it at once, even after caching its absence', async () => {
    const clock = new ManualClock(0);
    const backing = new MemoryApiKeyRegistry();
    const cached = new CachedApiKeyRegistry(backing, clock, 5_000, 100);
    expect(await cached.planOf('late')).toBeUndefined();
    await cached.register('late', STANDARD_PLANS.free);
    expect(await cached.planOf('late')).toEqual(STANDARD_PLANS.free);
  });

  it('holds at most maxEntries answers, dropping the oldest', async () => {
    const clock = new ManualClock(0);
    const backing = new CountingRegistry(new MemoryApiKeyRegistry());
    const cached = new CachedApiKeyRegistry(backing, clock, 60_000, 3);
    for (const digest of ['a', 'b', 'c', 'd']) await cached.planOf(digest);
    expect(backing.lookups).toBe(4);
    await cached.planOf('d');
    await cached.planOf('b');
    expect(backing.lookups).toBe(4);
    await cached.planOf('a');
    expect(backing.lookups, 'a was the oldest and was dropped').toBe(5);
  });
});
