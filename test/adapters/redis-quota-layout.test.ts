import { describe, expect, it } from 'vitest';
import { QUOTA_LAYOUT, QUOTA_LAYOUT_ERROR } from '../../src/adapters/redis/quota-script.lua.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import { ManualClock } from '../support/manual-clock.js';
import { useTestRedis } from '../support/use-test-redis.js';

const shared = useTestRedis();
const START = 1_767_225_600_000;
const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 5, windowMs: 60_000 }], ban: { strikes: 2, strikeWindowMs: 60_000, banMs: 60_000 } };

/** A store under a fresh prefix, and the hash of `subject` in it. */
const fixture = (): { store: RedisQuotaStore; clock: ManualClock; keyOf: (subject: string) => string } => {
  const prefix = shared.freshPrefix();
  const clock = new ManualClock(START);
  return { store: new RedisQuotaStore(shared.redis, { prefix, time: clock }), clock, keyOf: (subject) => `${prefix}{q:${subject}}` };
};

describe('the layout of the stored quota counters', () => {
  it('is written in each hash made, and a hash without it (made before layouts were numbered) is read as layout 1', async () => {
    expect(QUOTA_LAYOUT).toBe(1);
    const { store, keyOf } = fixture();
    await store.decide('old', policy);
    await store.decide('old', policy);
    expect(await shared.redis.hget(keyOf('old'), 'v')).toBe(String(QUOTA_LAYOUT));
    await shared.redis.hdel(keyOf('old'), 'v');
    // The two requests counted before are still counted: 5 - 3.
    expect((await store.decide('old', policy)).remaining).toEqual([2]);
  });

  it('made before refunds, without the time the hash was made (sa), take a refund of a request they counted as their own', async () => {
    const { store, keyOf } = fixture();
    const counted = await store.decide('old', policy);
    await store.decide('old', policy);
    expect(await shared.redis.hget(keyOf('old'), 'sa')).toBe(String(START));
    await shared.redis.hdel(keyOf('old'), 'sa');
    await store.refund('old', policy, [1], counted);
    expect((await store.peek('old', policy)).remaining).toEqual([4]);
  });

  it('of another layout (a newer instance wrote them) are neither read nor written: the call fails as the store unavailable, other subjects go on', async () => {
    const { store, clock, keyOf } = fixture();
    const first = await store.decide('newer', policy);
    for (let i = 0; i < 5; i++) await store.decide('newer', policy);
    await shared.redis.hset(keyOf('newer'), 'v', String(QUOTA_LAYOUT + 1));
    const before = await shared.redis.hgetallBuffer(keyOf('newer'));
    clock.advance(1_000);

    const calls = [
      store.decide('newer', policy),
      store.peek('newer', policy),
      store.recordStrikes('newer', policy, [clock.now(), clock.now() + 60_000]),
      store.refund('newer', policy, [1], first),
    ];
    const other = store.decide('other', policy);
    for (const call of calls) {
      const error: unknown = await call.then(() => undefined, (failure: unknown) => failure);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(((error as Error).cause as Error).message).toMatch(new RegExp(`^${QUOTA_LAYOUT_ERROR} .*layout ${QUOTA_LAYOUT + 1}; this instance reads layout ${QUOTA_LAYOUT}$`));
    }
    expect((await other).verdict).toBe('admitted');
    expect(await shared.redis.hgetallBuffer(keyOf('newer'))).toEqual(before);

    // A reset forgets them whatever their layout, and the subject starts over in this one.
    await store.reset('newer');
    expect((await store.decide('newer', policy)).remaining).toEqual([4]);
    expect(await shared.redis.hget(keyOf('newer'), 'v')).toBe(String(QUOTA_LAYOUT));
  });
});
