import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, stopAll, type CliProcess } from '../support/cli-process.js';
import { createTestDatabase, type TestDatabase } from '../support/test-postgres.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

const PREPAID = 12;
const PLANS = { plans: { prepaid: { rules: [{ name: 'minute', limit: 1000, window: '1m' }, { name: 'prepaid', credits: PREPAID }] } } };

/*
 * An operator's credits through `petstore keys` on PostgreSQL, beside two running instances:
 * the balance read, topped up and set by the CLI is the one both instances spend, at once
 * (it is a row, not a cache), and the usage export counts what they answered.
 */
describe('petstore keys credits and usage, with two instances on PostgreSQL', () => {
  let database: TestDatabase;
  let redis: TestRedis;
  let dir: string;
  let storeEnv: Record<string, string>;
  const servers: CliProcess[] = [];
  let urls: string[] = [];

  const keys = (...args: string[]): ReturnType<typeof runCli> => runCli(storeEnv, ['keys', ...args]);
  const statusOf = async (url: string, key: string): Promise<number> => {
    const response = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    return response.status;
  };

  beforeAll(async () => {
    [database, redis] = await Promise.all([createTestDatabase(), acquireTestRedis()]);
    dir = mkdtempSync(join(tmpdir(), 'credits-cli-'));
    writeFileSync(join(dir, 'plans.json'), JSON.stringify(PLANS));
    storeEnv = {
      PETSTORE_STORE: 'postgres',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      PETSTORE_REDIS_PREFIX: redis.prefix,
      PETSTORE_PLANS: join(dir, 'plans.json'),
    };
    for (let i = 0; i < 2; i++) {
      servers.push(startCli({ ...storeEnv, PORT: '0', PETSTORE_ENV: 'staging', PETSTORE_API_KEYS: 'configured-key-1:pro', PETSTORE_ACCESS_LOG: 'off' }));
    }
    urls = await Promise.all(servers.map(async (server) => (await server.waitFor(/listening on (\S+\/v1)/, 20_000))[1] ?? ''));
  });
  afterAll(async () => {
    await stopAll(servers);
    await redis?.cleanup();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads, tops up and sets the balance both instances spend, and exports the usage they answered', async () => {
    const created = await keys('create', '--plan', 'prepaid', '--label', 'credits');
    expect(created.code, created.output).toBe(0);
    const [, id = ''] = /^id:\s+(key_[0-9a-f]{16})$/m.exec(created.output) ?? [];
    const [, key = ''] = /^key:\s+(ps_[A-Za-z0-9_-]{43})$/m.exec(created.output) ?? [];

    const statuses: number[] = [];
    for (let i = 0; i < PREPAID + 2; i++) statuses.push(await statusOf(urls[i % 2]!, key));
    expect(statuses).toEqual([...new Array<number>(PREPAID).fill(200), 402, 402]);

    const read = await keys('credits', id);
    expect(read.code, read.output).toBe(0);
    expect(read.output).toMatch(/^balance: 0$/m);

    const added = await keys('credits', id, '--add', '3');
    expect(added.code, added.output).toBe(0);
    // A row, not a cache: both instances spend the top-up at once.
    const afterTopUp: number[] = [];
    for (let i = 0; i < 4; i++) afterTopUp.push(await statusOf(urls[i % 2]!, key));
    expect(afterTopUp).toEqual([200, 200, 200, 402]);

    const set = await keys('credits', id, '--set', '1');
    expect(set.code, set.output).toBe(0);
    expect(await statusOf(urls[1]!, key)).toBe(200);

    const usage = await keys('usage', '--key', id, '--format', 'csv');
    expect(usage.code, usage.output).toBe(0);
    const [header, row, ...rest] = usage.output.trim().split(/\r?\n/);
    expect(header).toBe('key,period,spent,spends,refused,refunded,refunds,refilled,adjusted');
    expect(row).toBe(`${id},1970-01-01,16,16,3,0,0,0,4`);
    expect(rest).toEqual([]);
  });
});
