import { MemoryIdempotencyRecords } from '../../src/adapters/memory/memory-idempotency-records.js';
import { MemoryIdempotencyStore } from '../../src/adapters/memory/memory-idempotency-store.js';
import { MemoryOrderRepository } from '../../src/adapters/memory/memory-order-repository.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import { PetsSlotKeys } from '../../src/adapters/redis/pets-slot-keys.js';
import { RedisIdempotencyStore } from '../../src/adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../src/adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../src/adapters/redis/redis-pet-repository.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { MAX_ID } from '../../src/domain/pets/pet.js';
import { describeIdExhaustionContract } from '../contracts/id-exhaustion-contract.js';
import { postgresStores, usePostgresSchemas } from './postgres-stores-fixture.js';
import { deleteKeysUnder } from '../support/test-redis.js';
import { useTestRedis } from '../support/use-test-redis.js';

// Memory: 2^53 pets will not fit in a process; its stores take a lower last id instead.
describeIdExhaustionContract('memory', async (left) => {
  const records = new MemoryIdempotencyRecords(new SystemClock());
  const pets = new MemoryPetRepository(records, { lastId: left.pets });
  return { pets, orders: new MemoryOrderRepository(pets, records, left.orders), idempotency: new MemoryIdempotencyStore(records), cleanup: async () => {} };
});

// Redis: the counters set just below 2^53-1.
const redis = useTestRedis();
describeIdExhaustionContract('Redis', async (left) => {
  const prefix = redis.freshPrefix();
  const keys = new PetsSlotKeys(prefix);
  await redis.redis.set(keys.petNext, String(MAX_ID - left.pets));
  await redis.redis.set(keys.orderNext, String(MAX_ID - left.orders));
  return {
    pets: new RedisPetRepository(redis.redis, prefix),
    orders: new RedisOrderRepository(redis.redis, prefix),
    idempotency: new RedisIdempotencyStore(redis.redis, prefix),
    cleanup: () => deleteKeysUnder(redis.redis, prefix),
  };
});

// PostgreSQL: the identities' sequences restarted just below 2^53-1.
const schemas = usePostgresSchemas();
describeIdExhaustionContract('PostgreSQL', (left) =>
  postgresStores(schemas, async (db) => {
    await db.query(`ALTER SEQUENCE pets_id_seq RESTART WITH ${MAX_ID - left.pets + 1}`);
    await db.query(`ALTER SEQUENCE orders_id_seq RESTART WITH ${MAX_ID - left.orders + 1}`);
  })(),
);
