import { describe, expect, it } from 'vitest';
import { RedisIdempotencyStore } from '../../src/adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../src/adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../src/adapters/redis/redis-pet-repository.js';
import { IDEMPOTENCY_IN_FLIGHT_MS, IDEMPOTENCY_MARK_RESOLUTION_MS, IDEMPOTENCY_RECORD_MS, type IdempotencyClaim } from '../../src/ports/idempotency-store.js';
import { describeIdempotencyStoreContract } from '../contracts/idempotency-store-contract.js';
import { claimOf } from '../contracts/stores-fixture.js';
import { useTestRedis } from '../support/use-test-redis.js';
import { redisStores } from './redis-stores-fixture.js';

const shared = useTestRedis();

describeIdempotencyStoreContract('RedisIdempotencyStore', redisStores(shared));

describe('RedisIdempotencyStore expiry, by Redis itself', () => {
  const recordKey = (prefix: string, claim: IdempotencyClaim): string =>
    `${prefix}{pets}:idempotency:${encodeURIComponent(claim.scope)}:${claim.key}`;
  // Between the write and the PTTL a loaded machine may spend a few seconds.
  const expectTtlAbout = async (key: string, ms: number): Promise<void> => {
    const ttl = await shared.redis.pttl(key);
    expect(ttl).toBeLessThanOrEqual(ms);
    expect(ttl).toBeGreaterThan(ms - 5_000);
  };

  it('an in-flight mark expires after IDEMPOTENCY_IN_FLIGHT_MS; a record completed by create or place after 24 h', async () => {
    const prefix = shared.freshPrefix();
    const store = new RedisIdempotencyStore(shared.redis, prefix);
    const pets = new RedisPetRepository(shared.redis, prefix);
    const orders = new RedisOrderRepository(shared.redis, prefix);
    const petClaim = claimOf('pet');
    await store.begin(petClaim);
    await expectTtlAbout(recordKey(prefix, petClaim), IDEMPOTENCY_IN_FLIGHT_MS);
    const pet = await pets.create({ name: 'Rex', categoryId: 1, status: 'available' }, petClaim);
    await expectTtlAbout(recordKey(prefix, petClaim), IDEMPOTENCY_RECORD_MS);
    const orderClaim = claimOf('order');
    await orders.place({ petId: pet.id, ownerId: 'o', placedAt: '2026-01-01T00:00:00.000Z' }, orderClaim);
    await expectTtlAbout(recordKey(prefix, orderClaim), IDEMPOTENCY_RECORD_MS);
  });

  it('a mark tells a repeat its time left, and holds it off no more in its last second (IDEMPOTENCY_MARK_RESOLUTION_MS)', async () => {
    const prefix = shared.freshPrefix();
    const store = new RedisIdempotencyStore(shared.redis, prefix);
    const claim = claimOf('k1');
    await store.begin(claim);
    await shared.redis.pexpire(recordKey(prefix, claim), 3_000);
    const repeat = await store.begin(claim);
    expect(repeat).toMatchObject({ kind: 'in_flight' });
    expect(repeat.kind === 'in_flight' && repeat.leftMs).toBeGreaterThan(IDEMPOTENCY_MARK_RESOLUTION_MS);
    expect(repeat.kind === 'in_flight' && repeat.leftMs).toBeLessThanOrEqual(3_000);
    await shared.redis.pexpire(recordKey(prefix, claim), IDEMPOTENCY_MARK_RESOLUTION_MS - 1);
    expect(await store.begin(claim)).toEqual({ kind: 'started' });
    await expectTtlAbout(recordKey(prefix, claim), IDEMPOTENCY_IN_FLIGHT_MS);
  });

  it('a key whose mark Redis expired starts again', async () => {
    const prefix = shared.freshPrefix();
    const store = new RedisIdempotencyStore(shared.redis, prefix);
    const claim = claimOf('k1');
    await store.begin(claim);
    // What waiting out the mark would do.
    await shared.redis.pexpire(recordKey(prefix, claim), 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.begin(claimOf('k1', 'another request'))).toEqual({ kind: 'started' });
  });
});
