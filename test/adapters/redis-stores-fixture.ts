import { RedisIdempotencyStore } from '../../src/adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../src/adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../src/adapters/redis/redis-pet-repository.js';
import type { CreateStores } from '../contracts/stores-fixture.js';
import { deleteKeysUnder } from '../support/test-redis.js';
import type { TestRedisFile } from '../support/use-test-redis.js';

/** Fresh Redis stores under a prefix of their own in the file's test Redis; cleanup deletes only its keys. */
export const redisStores =
  (shared: TestRedisFile): CreateStores =>
  async () => {
    const prefix = shared.freshPrefix();
    const { redis } = shared;
    return {
      pets: new RedisPetRepository(redis, prefix),
      orders: new RedisOrderRepository(redis, prefix),
      idempotency: new RedisIdempotencyStore(redis, prefix),
      cleanup: () => deleteKeysUnder(redis, prefix),
    };
  };
