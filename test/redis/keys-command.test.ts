import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

/**
 * `petstore keys` against two server processes on one Redis: a key created by the CLI works
 * on both at once, and a revoked or expired one is refused by both within 5 s.
 */
describe('petstore keys with two running instances', () => {
  let redis: TestRedis;
  const servers: CliProcess[] = [];
  const urls: string[] = [];
  let storeEnv: Record<string, string>;

  const keys = async (...args: string[]): Promise<{ code: number | string; output: string }> => {
    const cli = startCli(storeEnv, ['keys', ...args]);
    const code = await cli.exited();
    return { code, output: cli.output() };
  };

  const statusOf = async (url: string, key: string): Promise<number> => {
    const response = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    return response.status;
  };

  /** Polls `url` every 100 ms until it refuses `key`; resolves with when (Date.now()) and the statuses seen before. */
  const refusedAt = async (url: string, key: string, timeoutMs: number): Promise<{ at: number; before: number[] }> => {
    const before: number[] = [];
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const status = await statusOf(url, key);
      if (status === 401) return { at: Date.now(), before };
      before.push(status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${url} still admits the key after ${timeoutMs} ms: ${before.join(' ')}`);
  };

  beforeAll(async () => {
    redis = await acquireTestRedis();
    storeEnv = { PETSTORE_STORE: 'redis', REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.prefix };
    for (let i = 0; i < 2; i++) {
      const cli = startCli({ PORT: '0', PETSTORE_ENV: 'staging', PETSTORE_API_KEYS: 'configured-key-1:pro', REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.prefix });
      servers.push(cli);
    }
    for (const server of servers) urls.push((await server.waitFor(/listening on (\S+)/))[1] ?? '');
  });
  afterAll(async () => {
    for (const server of servers) server.kill();
    await Promise.all(servers.map((server) => server.exited()));
    await redis.cleanup();
  });

  it('creates a key that both instances admit, lists it without its secret, and revokes it: both refuse it within 5 s', async () => {
    const created = await keys('create', '--plan', 'pro', '--label', 'process test');
    expect(created.code, created.output).toBe(0);
    const [, id = ''] = /^id:\s+(key_[0-9a-f]{16})$/m.exec(created.output) ?? [];
    const [, key = ''] = /^key:\s+(ps_[A-Za-z0-9_-]{43})$/m.exec(created.output) ?? [];
    expect(id).not.toBe('');
    expect(key).not.toBe('');

    for (const url of urls) {
      const response = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit'), 'the pro plan').toBe('300');
    }

    const listed = await keys('list');
    expect(listed.code).toBe(0);
    const row = listed.output.split('\n').find((line) => line.startsWith(id)) ?? '';
    expect(row.split(/\s{2,}/)).toEqual([id, 'active', 'pro (300/min, 10000/day)', 'customer', expect.stringMatching(/^\d{4}-\d\d-\d\dT/), 'never', '-', 'process test']);
    expect(listed.output).not.toContain(key.slice(3));

    const revoked = await keys('revoke', id);
    expect(revoked.code).toBe(0);
    expect(revoked.output).toContain(`Revoked ${id}`);
    const revokedAt = Date.now();
    const refusals = await Promise.all(urls.map((url) => refusedAt(url, key, 8_000)));
    for (const { at, before } of refusals) {
      expect(at - revokedAt, 'refused within the 5 s the instances cache a lookup').toBeLessThanOrEqual(5_000);
      expect(new Set(before), 'admitted, from the cache, until then').toEqual(new Set(before.length === 0 ? [] : [200]));
    }
    for (const url of urls) expect(await statusOf(url, key), 'and refused from then on').toBe(401);
    expect((await keys('list')).output.split('\n').find((line) => line.startsWith(id))).toMatch(new RegExp(`^${id}\\s+revoked\\s`));
    for (const url of urls) expect(await statusOf(url, 'configured-key-1'), 'configured keys work as before').toBe(200);
  });

  it('a key created with --expires-in 3s is admitted by both instances until then and refused by both from then on', async () => {
    const created = await keys('create', '--plan', 'free', '--expires-in', '3s');
    expect(created.code, created.output).toBe(0);
    const [, key = ''] = /^key:\s+(\S+)$/m.exec(created.output) ?? [];
    const [, expires = ''] = /^expires:\s+(\S+)$/m.exec(created.output) ?? [];
    // Printed to the second, rounded down: the key expires within the second after.
    const printedExpiry = Date.parse(expires);
    expect(printedExpiry).toBeGreaterThan(Date.now());
    for (const url of urls) expect(await statusOf(url, key)).toBe(200);

    const refusals = await Promise.all(urls.map((url) => refusedAt(url, key, 8_000)));
    for (const { at } of refusals) {
      expect(at).toBeGreaterThanOrEqual(printedExpiry);
      expect(at - printedExpiry, 'at expiry, not after a cached lookup ages out').toBeLessThan(1_000 + 500);
    }
    const listed = await keys('list');
    expect(listed.output).toMatch(/\s+expired\s+free \(60\/min, 1000\/day\)/);
  });
});
