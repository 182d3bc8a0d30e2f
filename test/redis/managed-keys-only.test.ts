import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config/config.js';
import { createLogger } from '../../src/app/logging/logger.js';
import { startPetStore } from '../../src/app/start-pet-store.js';
import { capturedLog } from '../support/captured-log.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

/*
 * Production with keys managed in the shared store only (petstore keys, the admin API): no static
 * PETSTORE_API_KEYS entry is needed there, and the start says where the keys come from.
 */

describe('production without PETSTORE_API_KEYS', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await acquireTestRedis();
  });
  afterAll(async () => {
    await redis?.cleanup();
  });

  it('is refused on the memory store, which no command can add a key to', () => {
    expect(loadConfig({ PETSTORE_ENV: 'production', PETSTORE_STORE: 'memory' })).toEqual({ ok: false, error: ['PETSTORE_API_KEYS is required in production: comma-separated KEY:PLAN entries'] });
  });

  it('is accepted on a shared store (redis, postgres), and says so in one info line at start', async () => {
    expect(loadConfig({ PETSTORE_ENV: 'production', PETSTORE_STORE: 'postgres', DATABASE_URL: 'postgres://db.example/shop' }).ok).toBe(true);
    const out = capturedLog<{ level: number; msg: string; store?: string }>();
    const logger = createLogger('info', out.stream);
    const store = await startPetStore(
      { PETSTORE_ENV: 'production', PORT: '0', PETSTORE_STORE: 'redis', REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.prefix },
      { logger },
    );
    await store.close(0, 0);
    await logger.close();
    const lines = out.lines();
    expect(lines.filter((line) => line.msg.startsWith('no PETSTORE_API_KEYS'))).toEqual([
      expect.objectContaining({ level: 30, store: 'redis', msg: expect.stringMatching(/every API key is one managed in the redis store \(petstore keys, the admin API\)/) }),
    ]);
  });
});
