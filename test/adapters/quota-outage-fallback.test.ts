import { describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { QuotaOutageFallback, type QuotaOutagePolicy } from '../../src/adapters/wrappers/quota-outage-fallback.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { QuotaPolicy, RuleCosts } from '../../src/domain/quota/quota-rule.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { failingStore } from '../support/quota-store-doubles.js';

const POLICY: QuotaPolicy = { rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }] };

/** A remote store that is down, or that fails for another reason. */
const failing = failingStore;

/** A remote store over a memory one, down while `down` is set. */
class SwitchedStore implements QuotaStore {
  down = false;
  constructor(readonly counts: MemoryQuotaStore) {}
  #answer<T>(work: () => T): Promise<T> {
    return this.down ? Promise.reject(new StoreUnavailableError('Redis')) : Promise.resolve(work());
  }
  decide(subject: string, policy: QuotaPolicy): Promise<QuotaDecision> {
    return this.#answer(() => this.counts.decide(subject, policy));
  }
  peek(subject: string, policy: QuotaPolicy): Promise<QuotaDecision> {
    return this.#answer(() => this.counts.peek(subject, policy));
  }
  reset(subject: string): Promise<void> {
    return this.#answer(() => this.counts.reset(subject));
  }
  refund(subject: string, policy: QuotaPolicy, units: RuleCosts, admitted: QuotaDecision): Promise<void> {
    return this.#answer(() => this.counts.refund(subject, policy, units, admitted));
  }
}

function fallbackFor(policy: QuotaOutagePolicy, primary: QuotaStore): QuotaOutageFallback {
  const clock = new ManualClock(1_800_000_000_000);
  return new QuotaOutageFallback(primary, policy, new MemoryQuotaStore(clock), clock);
}

describe('the quota check while its store is down', () => {
  it('local: limits with the in-process engine, still exactly', async () => {
    const store = fallbackFor('local', failing(new StoreUnavailableError('Redis')));
    const verdicts = [];
    for (let i = 0; i < 3; i++) verdicts.push((await store.decide('key:a', POLICY)).verdict);
    expect(verdicts).toEqual(['admitted', 'admitted', 'rate_limited']);
  });

  it('local: decides per-rule costs and shadow rules as the store would', async () => {
    const store = fallbackFor('local', failing(new StoreUnavailableError('Redis')));
    const policy: QuotaPolicy = { rules: [POLICY.rules[0]!, { name: 'search', limit: 1, windowMs: 60_000, mode: 'shadow' }] };
    expect(await store.decide('key:a', policy, [0, 1])).toMatchObject({ verdict: 'admitted', remaining: [2, 0] });
    expect(await store.decide('key:a', policy, [2, 1])).toMatchObject({ verdict: 'admitted', remaining: [0, 0], shadowed: [1] });
    expect(await store.peek('key:a', policy, [1, 0])).toMatchObject({ verdict: 'rate_limited', remaining: [0, 0] });
  });

  it('allow: admits without counting and reports nothing spent', async () => {
    const store = fallbackFor('allow', failing(new StoreUnavailableError('Redis')));
    for (let i = 0; i < 5; i++) {
      const decision = await store.decide('key:a', POLICY);
      expect(decision.verdict).toBe('admitted');
      expect(decision.remaining).toEqual([2]);
    }
  });

  it('deny: passes the unavailability on (the transport answers 503, never 429)', async () => {
    const store = fallbackFor('deny', failing(new StoreUnavailableError('Redis')));
    await expect(store.decide('key:a', POLICY)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('never hides a failure that is not an outage, whatever the policy', async () => {
    for (const policy of ['local', 'allow', 'deny'] as const) {
      const store = fallbackFor(policy, failing(new TypeError('a bug')));
      await expect(store.decide('key:a', POLICY)).rejects.toBeInstanceOf(TypeError);
    }
  });

  it('uses the primary store whenever it answers', async () => {
    const clock = new ManualClock(0);
    const primary = new MemoryQuotaStore(clock);
    const local = new MemoryQuotaStore(clock);
    const store = new QuotaOutageFallback(primary, 'local', local, clock);
    await store.decide('key:a', POLICY);
    expect(primary.size).toBe(1);
    expect(local.size).toBe(0);
  });

  describe('refunds', () => {
    const setUp = (policy: QuotaOutagePolicy) => {
      const clock = new ManualClock(1_800_000_000_000);
      const primary = new SwitchedStore(new MemoryQuotaStore(clock));
      const local = new MemoryQuotaStore(clock);
      return { primary, local, store: new QuotaOutageFallback(primary, policy, local, clock) };
    };
    const remaining = async (store: QuotaStore): Promise<number | undefined> => (await store.peek('key:a', POLICY)).remaining[0];

    it('local: gives a refund back where its request was decided, the primary\'s to the primary and the local store\'s to it, whichever answers now', async () => {
      const { primary, local, store } = setUp('local');
      const counted = await store.decide('key:a', POLICY);
      primary.down = true;
      const decidedLocally = await store.decide('key:a', POLICY);
      primary.down = false;
      await store.refund('key:a', POLICY, [1], decidedLocally);
      expect([await remaining(primary), await remaining(local)]).toEqual([1, 2]);
      await store.refund('key:a', POLICY, [1], counted);
      expect([await remaining(primary), await remaining(local)]).toEqual([2, 2]);
    });

    it('allow: a blind admission counted nothing, so its refund gives nothing back anywhere', async () => {
      const { primary, local, store } = setUp('allow');
      await store.decide('key:a', POLICY);
      primary.down = true;
      const blind = await store.decide('key:a', POLICY);
      primary.down = false;
      await store.refund('key:a', POLICY, [1], blind);
      expect([await remaining(primary), await remaining(local)]).toEqual([1, 2]);
    });

    it('a refund the primary cannot take fails as the store unavailable, and nothing is given back elsewhere', async () => {
      for (const policy of ['local', 'allow', 'deny'] as const) {
        const { primary, local, store } = setUp(policy);
        const counted = await store.decide('key:a', POLICY);
        primary.down = true;
        await expect(store.refund('key:a', POLICY, [1], counted)).rejects.toBeInstanceOf(StoreUnavailableError);
        primary.down = false;
        expect([await remaining(primary), await remaining(local)], policy).toEqual([1, 2]);
      }
    });
  });
});

describe('when the fallback serves', () => {
  it.each(['local', 'allow'] as const)('tells once when it starts serving (%s) and once when the store answers again; deny never serves', async (policy) => {
    const clock = new ManualClock(1_800_000_000_000);
    const primary = new SwitchedStore(new MemoryQuotaStore(clock));
    const told: boolean[] = [];
    const fallback = new QuotaOutageFallback(primary, policy, new MemoryQuotaStore(clock), clock, (serving) => told.push(serving));
    await fallback.decide('a', POLICY);
    primary.down = true;
    await fallback.decide('a', POLICY);
    await fallback.decide('b', POLICY);
    expect(fallback.serving).toBe(true);
    primary.down = false;
    await fallback.decide('a', POLICY);
    await fallback.decide('a', POLICY);
    expect([told, fallback.serving]).toEqual([[true, false], false]);

    const denied: boolean[] = [];
    const deny = new QuotaOutageFallback(new SwitchedStore(new MemoryQuotaStore(clock)), 'deny', new MemoryQuotaStore(clock), clock, (serving) => denied.push(serving));
    expect(denied).toEqual([]);
    expect(deny.serving).toBe(false);
  });
});
