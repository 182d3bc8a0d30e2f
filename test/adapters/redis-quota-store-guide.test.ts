import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import { useTestRedis } from '../support/use-test-redis.js';

/*
 * docs/embedding.md's block building a RedisQuotaStore, run as written (its imports bound to
 * the sources, its URL and prefix to this file's test Redis), then asked twice for one subject.
 */

const shared = useTestRedis();
const guide = readFileSync(join(import.meta.dirname, '../../docs/embedding.md'), 'utf8');
const block = /\*\*A shared store\*\*[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1];

it("builds a RedisQuotaStore as docs/embedding.md shows, and a limiter over it counts on the test Redis", async () => {
  expect(block, 'docs/embedding.md has the RedisQuotaStore block').toBeDefined();
  const body = (block ?? '')
    .replace(/^import .*$/gm, '')
    .replace("'redis://127.0.0.1:6379'", 'url')
    .replace("'myapp:limits:'", 'prefix');
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<unknown>;
  const build = new AsyncFunction('createRedisClient', 'RedisQuotaStore', 'createRateLimiter', 'url', 'prefix', `${body}\nreturn { limiter, redis };`);
  const { limiter, redis } = (await build(createRedisClient, RedisQuotaStore, createRateLimiter, shared.url, shared.freshPrefix())) as {
    limiter: ReturnType<typeof createRateLimiter<RedisQuotaStore>>;
    redis: { quit(): Promise<unknown> };
  };
  try {
    const first = await limiter.check('tenant:acme');
    const second = await limiter.check('tenant:acme');
    expect([first.allowed, second.decision.remaining[0]]).toEqual([true, (first.decision.remaining[0] ?? 0) - 1]);
  } finally {
    await redis.quit();
  }
});
