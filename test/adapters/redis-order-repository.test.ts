import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisIdempotencyStore } from '../../src/adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../src/adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../src/adapters/redis/redis-pet-repository.js';
import { MAX_ID } from '../../src/domain/paging/ids.js';
import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { claimOf } from '../contracts/stores-fixture.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';
import { useTestRedis } from '../support/use-test-redis.js';
import { redisStores } from './redis-stores-fixture.js';
import { runs } from '../support/property-runs.js';

const shared = useTestRedis();
const PLACED_AT = '2026-11-21T08:36:00.123Z';

describeOrderRepositoryContract('RedisOrderRepository', redisStores(shared), { numRuns: runs(100) });

describe('RedisOrderRepository', () => {
  it('of 30 concurrent orders for one pet through two clients (two instances) exactly one is placed', async () => {
    const prefix = shared.freshPrefix();
    const other = await createRedisClient({ url: shared.url });
    try {
      const pet = await new RedisPetRepository(shared.redis, prefix).create({ name: 'Rex', categoryId: 1, status: 'available' });
      const repositories = [new RedisOrderRepository(shared.redis, prefix), new RedisOrderRepository(other, prefix)];
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) => repositories[i % 2]!.place({ petId: pet.id, ownerId: `owner ${i}`, placedAt: PLACED_AT })),
      );
      expect(outcomes.filter((outcome) => outcome.kind === 'placed')).toHaveLength(1);
      expect(await repositories[1]!.page({ afterId: 0, limit: 100 })).toHaveLength(1);
    } finally {
      other.disconnect();
    }
  });

  it('keeps order ids, pet ids and categoryIds up to 2^53 - 1 exact through placing and transitions', async () => {
    const prefix = shared.freshPrefix();
    await shared.redis.set(`${prefix}{pets}:next-id`, String(MAX_ID - 1));
    await shared.redis.set(`${prefix}{pets}:orders:next-id`, String(MAX_ID - 1));
    const pets = new RedisPetRepository(shared.redis, prefix);
    const orders = new RedisOrderRepository(shared.redis, prefix);
    const pet = await pets.create({ name: 'Rex "the \\ king" 🐕', categoryId: MAX_ID, status: 'available' });
    expect(pet.id).toBe(MAX_ID);
    const placed = await orders.place({ petId: MAX_ID, ownerId: 'owner:"{x}"', placedAt: PLACED_AT });
    const order = { id: MAX_ID, petId: MAX_ID, status: 'placed', placedAt: PLACED_AT, ownerId: 'owner:"{x}"' };
    expect(placed).toEqual({ kind: 'placed', order });
    expect(await orders.transition(MAX_ID, ['placed'], 'approved', 'pending')).toEqual({ kind: 'changed', order: { ...order, status: 'approved' } });
    expect(await orders.transition(MAX_ID, ['approved'], 'delivered', 'sold')).toEqual({ kind: 'changed', order: { ...order, status: 'delivered' } });
    // The pet's other fields are kept byte for byte: only its status was replaced.
    expect(await pets.get(MAX_ID)).toEqual({ ...pet, status: 'sold' });
    expect(await orders.page({ afterId: MAX_ID - 1, limit: 5, ownerId: 'owner:"{x}"', status: 'delivered' })).toEqual([
      { ...order, status: 'delivered' },
    ]);
  });
});

describe('RedisOrderRepository on a Redis of its own', () => {
  let server: RedisServerProcess;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('writes every key of orders and Idempotency-Key records under its prefix, in the {pets} hash slot', async () => {
    const redis = await createRedisClient({ url: server.url });
    try {
      const pets = new RedisPetRepository(redis, 'shop:');
      const orders = new RedisOrderRepository(redis, 'shop:');
      const idempotency = new RedisIdempotencyStore(redis, 'shop:');
      await pets.create({ name: 'Rex', categoryId: 1, status: 'available' });
      const claim = claimOf('k1', 'f', 'scope:1');
      await idempotency.begin(claim);
      await orders.place({ petId: 1, ownerId: 'alice', placedAt: PLACED_AT }, claim);
      await orders.transition(1, ['placed'], 'cancelled', 'available');
      // The first braces of a key name are its hash tag: {pets} for all.
      expect((await redis.keys('*')).sort()).toEqual([
        'shop:{pets}:idempotency:scope%3A1:k1',
        'shop:{pets}:ids',
        'shop:{pets}:next-id',
        'shop:{pets}:orders:ids',
        'shop:{pets}:orders:next-id',
        'shop:{pets}:orders:owner-status:cancelled:alice',
        'shop:{pets}:orders:owner:alice',
        'shop:{pets}:orders:records',
        'shop:{pets}:orders:status:cancelled',
        'shop:{pets}:records',
        'shop:{pets}:status:available',
      ]);
    } finally {
      redis.disconnect();
    }
  });
});
