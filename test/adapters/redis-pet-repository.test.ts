import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisPetRepository } from '../../src/adapters/redis/redis-pet-repository.js';
import { MAX_ID } from '../../src/domain/pets/pet.js';
import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import { pagedPets } from '../contracts/stores-fixture.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';
import { useTestRedis } from '../support/use-test-redis.js';
import { redisStores } from './redis-stores-fixture.js';
import { runs } from '../support/property-runs.js';

const shared = useTestRedis();

describePetRepositoryContract('RedisPetRepository', redisStores(shared), { numRuns: runs(200) });

describe('RedisPetRepository', () => {
  it('refuses a key prefix with braces, which would replace its hash tag', () => {
    expect(() => new RedisPetRepository(shared.redis, 'pet{store}:')).toThrow(RangeError);
  });

  it('a second instance on the same store (another process, or a restart) serves every pet and continues the ids', async () => {
    const prefix = shared.freshPrefix();
    const first = new RedisPetRepository(shared.redis, prefix);
    const created = [await first.create({ name: 'Rex', categoryId: 1, status: 'sold' })];
    const other = await createRedisClient({ url: shared.url });
    try {
      const second = new RedisPetRepository(other, prefix);
      expect(await second.get(1)).toEqual(created[0]);
      created.push(await second.create({ name: 'Tom', categoryId: 2, status: 'pending' }));
      expect(created[1]?.id).toBe(2);
      expect(await pagedPets(first, { afterId: 0, limit: 10 })).toEqual(created);
    } finally {
      other.disconnect();
    }
  });

  it('200 concurrent creates through two clients get 200 distinct ids', async () => {
    const prefix = shared.freshPrefix();
    const other = await createRedisClient({ url: shared.url });
    try {
      const repositories = [new RedisPetRepository(shared.redis, prefix), new RedisPetRepository(other, prefix)];
      const created = await Promise.all(
        Array.from({ length: 200 }, (_, i) => repositories[i % 2]!.create({ name: `pet ${i}`, categoryId: 1, status: 'available' })),
      );
      expect(new Set(created.map((pet) => pet.id)).size).toBe(200);
      expect(Math.max(...created.map((pet) => pet.id))).toBe(200);
    } finally {
      other.disconnect();
    }
  });

  it('keeps ids up to 2^53 - 1 exact in the records, the indexes and the pages', async () => {
    const prefix = shared.freshPrefix();
    const repository = new RedisPetRepository(shared.redis, prefix);
    await shared.redis.set(`${prefix}{pets}:next-id`, String(MAX_ID - 2));
    const created = [
      await repository.create({ name: 'a', categoryId: MAX_ID, status: 'sold' }),
      await repository.create({ name: 'b', categoryId: 1, status: 'sold' }),
    ];
    expect(created.map((pet) => pet.id)).toEqual([MAX_ID - 1, MAX_ID]);
    expect(await repository.get(MAX_ID)).toEqual(created[1]);
    expect(await pagedPets(repository, { afterId: MAX_ID - 2, limit: 5, status: 'sold' })).toEqual(created);
    expect(await pagedPets(repository, { afterId: MAX_ID - 1, limit: 5 })).toEqual([created[1]]);
  });
});

describe('RedisPetRepository on a Redis of its own', () => {
  let server: RedisServerProcess;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('writes every key under its prefix, all in the {pets} hash slot', async () => {
    const redis = await createRedisClient({ url: server.url });
    try {
      const repository = new RedisPetRepository(redis, 'shop:');
      for (const status of ['available', 'pending', 'sold'] as const) await repository.create({ name: status, categoryId: 1, status });
      await repository.pageJson({ afterId: 0, limit: 10, status: 'sold' });
      // The first braces of a key name are its hash tag: {pets} for all.
      expect((await redis.keys('*')).sort()).toEqual([
        'shop:{pets}:ids',
        'shop:{pets}:next-id',
        'shop:{pets}:records',
        'shop:{pets}:status:available',
        'shop:{pets}:status:pending',
        'shop:{pets}:status:sold',
      ]);
    } finally {
      redis.disconnect();
    }
  });

  it('answers the page reads of one turn with one script call, a page asked for twice read once', async () => {
    const redis = await createRedisClient({ url: server.url });
    try {
      const repository = new RedisPetRepository(redis, 'turn:');
      for (const status of ['available', 'sold', 'available'] as const) await repository.create({ name: status, categoryId: 1, status });
      // The script is loaded by the first call; counted from here.
      await repository.pageJson({ afterId: 0, limit: 1 });
      await redis.config('RESETSTAT');
      const queries = [{ afterId: 0, limit: 1 }, { afterId: 1, limit: 5 }, { afterId: 0, limit: 1 }, { afterId: 0, limit: 5, status: 'sold' as const }, { afterId: 1, limit: 5 }];
      const pages = await Promise.all(queries.map((query) => repository.pageJson(query)));
      expect(pages.map(({ json }) => (JSON.parse(json) as { id: number }[]).map(({ id }) => id))).toEqual([[1], [2, 3], [1], [2], [2, 3]]);
      expect(pages.map(({ moreAfter }) => moreAfter)).toEqual([1, undefined, 1, undefined, undefined]);
      const stats = await redis.info('commandstats');
      expect(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1]).toBe('1');
      expect(/cmdstat_zrange:calls=(\d+)/.exec(stats)?.[1]).toBe('3');
    } finally {
      redis.disconnect();
    }
  });
});
