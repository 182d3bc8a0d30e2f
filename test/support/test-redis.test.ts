import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireTestRedis, deleteKeysUnder, startRedisServer, type RedisServerProcess } from './test-redis.js';

describe('the test Redis', () => {
  let server: RedisServerProcess;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  it('REDIS_URL comes first', async () => {
    const before = process.env['REDIS_URL'];
    process.env['REDIS_URL'] = server.url;
    try {
      const acquired = await acquireTestRedis();
      expect(acquired.url).toBe(server.url);
      await acquired.cleanup();
    } finally {
      if (before === undefined) delete process.env['REDIS_URL'];
      else process.env['REDIS_URL'] = before;
    }
  });

  it('gives each acquisition its own prefix, and its cleanup deletes its keys and no other', async () => {
    const before = process.env['REDIS_URL'];
    process.env['REDIS_URL'] = server.url;
    try {
      const [mine, theirs] = await Promise.all([acquireTestRedis(), acquireTestRedis()]);
      expect(mine.prefix).not.toBe(theirs.prefix);
      expect(mine.prefix).toMatch(/^petstore-test:[0-9a-f]+:$/);
      // More keys than one SCAN step returns, so the cursor is followed.
      await redis.mset(Object.fromEntries(Array.from({ length: 2_500 }, (_, i) => [`${mine.prefix}${i}`, 'x'])));
      const others = [`${theirs.prefix}1`, `${mine.prefix.slice(0, -1)}x`, 'unrelated'];
      for (const key of others) await redis.set(key, 'kept');
      await mine.cleanup();
      expect((await redis.keys('*')).sort()).toEqual([...others].sort());
      await redis.del(...others);
    } finally {
      if (before === undefined) delete process.env['REDIS_URL'];
      else process.env['REDIS_URL'] = before;
    }
  });

  it('deletes under a prefix taken literally, not as a pattern', async () => {
    await redis.set('a*b:1', 'x');
    await redis.set('aXb:1', 'kept');
    await deleteKeysUnder(redis, 'a*b:');
    expect(await redis.keys('*')).toEqual(['aXb:1']);
    await redis.del('aXb:1');
  });

  it('cannot start a second redis-server on a port in use, and says why', async () => {
    await expect(startRedisServer(server.port)).rejects.toThrow(/redis-server exited/);
  });
});
