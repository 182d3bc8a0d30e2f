import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisApiKeyRegistry } from '../../src/adapters/redis/redis-api-key-registry.js';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisPetRepository } from '../../src/adapters/redis/redis-pet-repository.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';

/** Every adapter operation, through one client, so an outage is seen by all of them. */
const operationsOf = (redis: Redis): Record<string, () => Promise<unknown>> => {
  const pets = new RedisPetRepository(redis, 'outage:');
  const keys = new RedisApiKeyRegistry(redis, 'outage:');
  const quotas = new RedisQuotaStore(redis, { prefix: 'outage:' });
  return {
    'create a pet': () => pets.create({ name: 'Rex', categoryId: 1, status: 'available' }),
    'get a pet': () => pets.get(1),
    'page pets': () => pets.pageJson({ afterId: 0, limit: 20, status: 'available' }),
    'register a key': () => keys.register('ab'.repeat(32), { plan: STANDARD_PLANS.free, role: 'customer' }),
    'look a key up': () => keys.grantOf('ab'.repeat(32)),
    'decide a quota': () => quotas.decide('key:ab', { rules: STANDARD_PLANS.free.rules }),
  };
};

/** Settles `operation` and says how long it took. */
const timed = async (operation: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> => {
  const started = performance.now();
  try {
    await operation();
    return { error: undefined, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
};

const expectAllUnavailableWithinASecond = async (operations: Record<string, () => Promise<unknown>>): Promise<void> => {
  for (const [name, operation] of Object.entries(operations)) {
    const { error, ms } = await timed(operation);
    expect(error, name).toBeInstanceOf(StoreUnavailableError);
    expect(ms, name).toBeLessThan(1_000);
  }
};

/** Retries until every operation succeeds again, as the service's next requests would. */
const recoveryTime = async (operations: Record<string, () => Promise<unknown>>): Promise<number> => {
  const started = performance.now();
  for (;;) {
    const results = await Promise.all(Object.values(operations).map(timed));
    if (results.every((result) => result.error === undefined)) return performance.now() - started;
    if (performance.now() - started > 5_000) throw results.find((result) => result.error !== undefined)?.error;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('Redis adapters through an outage', () => {
  let server: RedisServerProcess;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    redis = await createRedisClient({ url: server.url });
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  it('with Redis stopped every operation fails within a second as unavailable; restarted, the same client serves again', async () => {
    const operations = operationsOf(redis);
    for (const operation of Object.values(operations)) await operation();

    // Some operations are in flight when Redis dies, the others arrive while it is down.
    const inFlight = Object.values(operations).map(timed);
    await server.stop();
    for (const { error, ms } of await Promise.all(inFlight)) {
      if (error !== undefined) expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeLessThan(1_000);
    }
    await expectAllUnavailableWithinASecond(operations);

    server = await startRedisServer(server.port);
    // The client reconnects by itself, with a backoff capped at one second.
    expect(await recoveryTime(operations)).toBeLessThan(2_500);
  });

  it('a Redis that accepts commands but never answers fails each operation within a second, then serves again', async () => {
    const operations = operationsOf(redis);
    await recoveryTime(operations);
    process.kill(server.pid, 'SIGSTOP');
    try {
      await expectAllUnavailableWithinASecond(operations);
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
    expect(await recoveryTime(operations)).toBeLessThan(1_000);
  });

  it('page reads and quota decisions sent in one script call each fail as unavailable within a second when Redis stops answering', async () => {
    const pets = new RedisPetRepository(redis, 'outage:');
    const quotas = new RedisQuotaStore(redis, { prefix: 'outage:' });
    await recoveryTime(operationsOf(redis));
    process.kill(server.pid, 'SIGSTOP');
    try {
      const reads = [0, 0, 5, 10].map((afterId) => timed(() => pets.pageJson({ afterId, limit: 20 })));
      const decisions = ['key:a', 'key:a', 'key:b'].map((subject) => timed(() => quotas.decide(subject, { rules: STANDARD_PLANS.free.rules })));
      for (const { error, ms } of await Promise.all([...reads, ...decisions])) {
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(ms).toBeLessThan(1_000);
      }
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
    expect(await recoveryTime(operationsOf(redis))).toBeLessThan(1_000);
  });

  it('a Redis out of memory is unavailable; a key of the wrong type is a bug, reported as it is', async () => {
    const operations = operationsOf(redis);
    await recoveryTime(operations);
    await redis.config('SET', 'maxmemory', '1');
    try {
      for (const name of ['create a pet', 'register a key', 'decide a quota']) {
        await expect(operations[name]!(), name).rejects.toBeInstanceOf(StoreUnavailableError);
      }
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
    await redis.set('outage:{pets}:records', 'not a hash');
    const { error } = await timed(operations['get a pet']!);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StoreUnavailableError);
    expect(String(error)).toContain('WRONGTYPE');
    await redis.del('outage:{pets}:records');
  });

  it('a client for a Redis that cannot be reached fails to start at once, as unavailable', async () => {
    const stopped = await startRedisServer();
    await stopped.stop();
    const { error, ms } = await timed(() => createRedisClient({ url: stopped.url }));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(String(error)).toContain(`127.0.0.1:${stopped.port}`);
    expect(ms).toBeLessThan(1_000);
  });
});
