import { describe, expect, it } from 'vitest';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { CachedApiKeyRegistry } from '../../src/adapters/wrappers/cached-api-key-registry.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import type { ApiKeyGrant, ApiKeyRegistry } from '../../src/ports/api-key-registry.js';
import { ManualClock } from '../support/manual-clock.js';

/** Counts the lookups that reach the backing registry. */
class CountingRegistry implements ApiKeyRegistry {
  lookups = 0;
  constructor(private readonly inner: ApiKeyRegistry) {}
  async grantOf(digest: string): Promise<ApiKeyGrant | undefined> {
    this.lookups++;
    return this.inner.grantOf(digest);
  }
  register(digest: string, grant: ApiKeyGrant): Promise<void> {
    return this.inner.register(digest, grant);
  }
}

const pro: ApiKeyGrant = { plan: STANDARD_PLANS.pro, role: 'customer' };
const freeStaff: ApiKeyGrant = { plan: STANDARD_PLANS.free, role: 'staff' };

describe('CachedApiKeyRegistry', () => {
  it('answers repeated lookups, known and unknown keys alike, from memory until the TTL passes', async () => {
    const clock = new ManualClock(0);
    const backing = new CountingRegistry(new MemoryApiKeyRegistry());
    await backing.register('known', pro);
    const cached = new CachedApiKeyRegistry(backing, clock, 5_000, 100);

    expect(await cached.grantOf('known')).toEqual(pro);
    expect(await cached.grantOf('unknown')).toBeUndefined();
    expect(cached.grantOf('known')).toEqual(pro);
    expect(cached.grantOf('unknown')).toBeUndefined();
    expect(backing.lookups).toBe(2);

    clock.advance(5_000);
    await cached.grantOf('known');
    expect(backing.lookups).toBe(3);
  });

  it('sees a key registered through it at once, even after caching its absence', async () => {
    const clock = new ManualClock(0);
    const backing = new MemoryApiKeyRegistry();
    const cached = new CachedApiKeyRegistry(backing, clock, 5_000, 100);
    expect(await cached.grantOf('late')).toBeUndefined();
    await cached.register('late', freeStaff);
    expect(await cached.grantOf('late')).toEqual(freeStaff);
  });

  it('holds at most maxEntries answers, dropping the oldest', async () => {
    const clock = new ManualClock(0);
    const backing = new CountingRegistry(new MemoryApiKeyRegistry());
    const cached = new CachedApiKeyRegistry(backing, clock, 60_000, 3);
    for (const digest of ['a', 'b', 'c', 'd']) await cached.grantOf(digest);
    expect(backing.lookups).toBe(4);
    await cached.grantOf('d');
    await cached.grantOf('b');
    expect(backing.lookups).toBe(4);
    await cached.grantOf('a');
    expect(backing.lookups, 'a was the oldest and was dropped').toBe(5);
  });

  it('refuses a cached key from its expiry on, though its answer is still cached', async () => {
    const clock = new ManualClock(1_000);
    const backing = new CountingRegistry(new MemoryApiKeyRegistry(clock));
    await backing.register('expiring', { ...pro, expiresAt: 3_000 });
    const cached = new CachedApiKeyRegistry(backing, clock, 5_000, 100);
    expect(await cached.grantOf('expiring')).toEqual({ ...pro, expiresAt: 3_000 });
    clock.set(2_999);
    expect(cached.grantOf('expiring')).toEqual({ ...pro, expiresAt: 3_000 });
    clock.set(3_000);
    expect(cached.grantOf('expiring')).toBeUndefined();
    expect(backing.lookups, 'decided from the cached answer and the clock').toBe(1);
  });

  it.each([
    ['revoked', (store: MemoryApiKeyRegistry, at: number) => store.revokeKey('key_1', at), undefined],
    ['updated', (store: MemoryApiKeyRegistry, at: number) => store.updateKey('key_1', { plan: STANDARD_PLANS.free, role: 'staff' }, at), freeStaff],
  ] as const)('answers a key %s in the shared store anew once its cached answer is ttlMs old, never later', async (_, change, after) => {
    const clock = new ManualClock(0);
    const store = new MemoryApiKeyRegistry(clock);
    await store.createKey('digest', { id: 'key_1', label: '', plan: STANDARD_PLANS.pro, role: 'customer', createdAt: 0 });
    const cached = new CachedApiKeyRegistry(store, clock, 5_000, 100);
    expect(await cached.grantOf('digest')).toEqual(pro);
    clock.set(1_000);
    await change(store, clock.now());
    clock.set(4_999);
    expect(await cached.grantOf('digest'), 'another instance may still serve the old grant from its cache').toEqual(pro);
    clock.set(5_000);
    expect(await cached.grantOf('digest')).toEqual(after);
  });

  it('keeps an answer read before an update no longer than ttlMs from when its lookup began, however late it arrives', async () => {
    const clock = new ManualClock(0);
    const store = new MemoryApiKeyRegistry(clock);
    await store.createKey('digest', { id: 'key_1', label: '', plan: STANDARD_PLANS.pro, role: 'customer', createdAt: 0 });
    let release = (): void => {};
    let lookups = 0;
    const slow: ApiKeyRegistry = {
      // The first lookup reads the old grant at 0 and delivers it only after the update; later ones answer at once.
      grantOf: (digest) => {
        const read = store.grantOf(digest);
        return ++lookups > 1 ? Promise.resolve(read) : new Promise((resolve) => (release = () => resolve(read)));
      },
      register: (digest, grant) => store.register(digest, grant),
    };
    const cached = new CachedApiKeyRegistry(slow, clock, 5_000, 100);
    const pending = cached.grantOf('digest');
    clock.set(3_000);
    await store.updateKey('key_1', { plan: STANDARD_PLANS.free, role: 'staff' }, clock.now());
    release();
    expect(await pending).toEqual(pro);
    clock.set(4_999);
    expect(cached.grantOf('digest')).toEqual(pro);
    clock.set(5_000);
    expect(await cached.grantOf('digest'), 'within 5 s of the update: 2 s after it').toEqual(freeStaff);
  });

  it('after a roll answers the new secret at once, refuses the old one at the end of its grace, and one rolled without grace within ttlMs', async () => {
    const clock = new ManualClock(0);
    const backing = new MemoryApiKeyRegistry(clock);
    const cached = new CachedApiKeyRegistry(backing, clock, 5_000, 100);
    await backing.createKey('old', { id: 'key_a', label: '', plan: STANDARD_PLANS.pro, role: 'customer', createdAt: 0 });
    expect(await cached.grantOf('old')).toEqual(pro);

    await backing.rollKey('key_a', 'new', 12_000, 0);
    expect(await cached.grantOf('new')).toEqual({ ...pro, holder: 'old' });
    clock.set(10_000);
    expect(await cached.grantOf('old')).toEqual({ ...pro, expiresAt: 12_000 });
    // Answered from the cache, whose entry lasts until 15,000: its expiry is the grace's end.
    clock.set(11_999);
    expect(cached.grantOf('old')).toEqual({ ...pro, expiresAt: 12_000 });
    clock.set(12_000);
    expect(cached.grantOf('old')).toBeUndefined();

    clock.set(60_000);

    // A second roll without grace: the cached grant of the secret it ends still answers up to ttlMs.
    expect(await cached.grantOf('new')).toEqual({ ...pro, holder: 'old' });
    await backing.rollKey('key_a', 'newer', 60_000, 60_000);
    expect(cached.grantOf('new')).toEqual({ ...pro, holder: 'old' });
    clock.set(65_000);
    expect(await cached.grantOf('new')).toBeUndefined();
    expect(await cached.grantOf('newer')).toEqual({ ...pro, holder: 'old' });
  });
});
