import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logging/logger.js';
import { startPetStore } from '../../src/app/start-pet-store.js';
import { capturedLog } from '../support/captured-log.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';

/** Starts a redis-store server on `redisUrl` with its log captured; resolves with the log lines once started and closed. */
async function startupLog(redisUrl: string): Promise<readonly { level: number; msg: string }[]> {
  const out = capturedLog<{ level: number; msg: string }>();
  const logger = createLogger('info', out.stream);
  const store = await startPetStore(
    { PETSTORE_ENV: 'test', PORT: '0', PETSTORE_STORE: 'redis', REDIS_URL: redisUrl, PETSTORE_REDIS_PREFIX: `persistence-${randomBytes(4).toString('hex')}:` },
    { logger },
  );
  await store.close(0);
  await logger.close();
  return out.lines();
}

describe('a Redis that keeps the records says what it keeps', () => {
  let volatile: RedisServerProcess;
  let appendOnly: RedisServerProcess;

  beforeAll(async () => {
    [volatile, appendOnly] = await Promise.all([startRedisServer(), startRedisServer(undefined, ['--appendonly', 'yes', '--appendfsync', 'everysec'])]);
  });
  afterAll(async () => {
    await Promise.all([volatile?.stop(), appendOnly?.stop()]);
  });

  it('warns at start, once, that pets, orders and keys are lost on restart when Redis has neither AOF nor RDB', async () => {
    const warnings = (await startupLog(volatile.url)).filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/neither an append-only file nor snapshots: pets, orders, Idempotency-Key records, API keys and credit balances are lost when it restarts/);
  });

  it('says nothing of the kind when Redis keeps an append-only file', async () => {
    const warnings = (await startupLog(appendOnly.url)).filter((line) => line.level === 40);
    expect(warnings).toEqual([]);
  });
});
