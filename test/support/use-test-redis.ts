import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { acquireTestRedis, type TestRedis } from './test-redis.js';

export interface TestRedisFile {
  /** The file's fail-fast client, as the service creates it. */
  readonly redis: Redis;
  readonly url: string;
  /** A prefix under the file's own, unused so far: a fresh, empty store for each fixture. */
  freshPrefix(): string;
}

/**
 * For one test file: a test Redis (see acquireTestRedis) and one client, acquired before its
 * tests and released after them, with every key the file wrote deleted.
 */
export const useTestRedis = (): TestRedisFile => {
  let testRedis: TestRedis | undefined;
  let client: Redis | undefined;
  let prefixes = 0;
  beforeAll(async () => {
    testRedis = await acquireTestRedis();
    // These files test the stores, not outages: a loaded CI machine must not fail them by a slow reply.
    client = await createRedisClient({ url: testRedis.url, commandTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    client?.disconnect();
    await testRedis?.cleanup();
  });
  const acquired = (): { testRedis: TestRedis; client: Redis } => {
    if (testRedis === undefined || client === undefined) throw new Error('useTestRedis: used outside the tests of its file');
    return { testRedis, client };
  };
  return {
    get redis() {
      return acquired().client;
    },
    get url() {
      return acquired().testRedis.url;
    },
    freshPrefix: () => `${acquired().testRedis.prefix}${prefixes++}:`,
  };
};
