import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, stopAll, type CliProcess } from '../support/cli-process.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

/*
 * `petstore keys` against two server processes on one Redis: a key created by the CLI works
 * on both at once, a revoked or expired one is refused by both within 5 s, and an updated one
 * is answered under its new plan by both within 5 s.
 */
describe('petstore keys with two running instances', () => {
  let redis: TestRedis;
  const servers: CliProcess[] = [];
  const urls: string[] = [];
  let storeEnv: Record<string, string>;

  const keys = (...args: string[]): ReturnType<typeof runCli> => runCli(storeEnv, ['keys', ...args]);

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
    await stopAll(servers);
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
    // Used today: one request on each instance, counted under the one key.
    expect(row.split(/\s{2,}/)).toEqual([id, 'active', 'pro (300/min, 10000/day)', 'customer', '2', expect.stringMatching(/^\d{4}-\d\d-\d\dT/), 'never', '-', 'process test']);
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

  const policyOf = async (url: string, key: string): Promise<string | null> => {
    const response = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    return response.headers.get('ratelimit-policy');
  };

  it('updates a key from free to enterprise: both instances answer under the new plan within 5 s; show and list tell its usage', async () => {
    const created = await keys('create', '--plan', 'free', '--label', 'upgrade test');
    expect(created.code, created.output).toBe(0);
    const [, id = ''] = /^id:\s+(\S+)$/m.exec(created.output) ?? [];
    const [, key = ''] = /^key:\s+(\S+)$/m.exec(created.output) ?? [];
    const FREE = '"minute";q=60;w=60, "day";q=1000;w=86400';
    const ENTERPRISE = '"minute";q=500;w=60, "day";q=20000;w=86400';
    for (const url of urls) expect(await policyOf(url, key)).toBe(FREE);

    const updated = await keys('update', id, '--plan', 'enterprise', '--per-minute', '500', '--per-day', '20000', '--label', 'upgraded');
    expect(updated.code, updated.output).toBe(0);
    expect(updated.output).toContain(`Updated ${id}: every instance applies it within 5 s.`);
    const updatedAt = Date.now();
    // Polled every 250 ms on both: far fewer than the free plan's 60 a minute.
    const applied = await Promise.all(
      urls.map(async (url) => {
        const before = new Set<string | null>();
        while (Date.now() - updatedAt < 8_000) {
          const policy = await policyOf(url, key);
          if (policy === ENTERPRISE) return { at: Date.now(), before };
          before.add(policy);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        throw new Error(`${url} still answers ${[...before].join(' | ')} after 8 s`);
      }),
    );
    for (const { at, before } of applied) {
      expect(at - updatedAt, 'under the new plan within the 5 s the instances cache a lookup').toBeLessThanOrEqual(5_000);
      expect([...before].every((policy) => policy === FREE), 'the old plan until then').toBe(true);
    }

    const shown = await keys('show', id);
    expect(shown.code, shown.output).toBe(0);
    const lines = shown.output.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual([`id:      ${id}`, 'label:   upgraded', 'plan:    enterprise (500/min, 20000/day), customer']);
    const used = Number(/^day\s+20000\s+(\d+)\s+(\d+)\s/m.exec(shown.output)?.[1]);
    // Two requests before the update, and the polls after it: every one counted, on either instance, under one key.
    expect(used).toBeGreaterThanOrEqual(4);
    expect(shown.output).toMatch(new RegExp(`^minute\\s+500\\s+${used}\\s+${500 - used}\\s+\\d{4}-`, 'm'));
    expect(shown.output).not.toContain(key.slice(3));
    const listed = await keys('list');
    const row = listed.output.split('\n').find((line) => line.startsWith(id)) ?? '';
    expect(row.split(/\s{2,}/).slice(1, 5)).toEqual(['active', 'enterprise (500/min, 20000/day)', 'customer', String(used)]);
  });

  it('answers bad updates with a reason and an exit code, changing nothing', async () => {
    const created = await keys('create', '--plan', 'pro');
    const [, id = ''] = /^id:\s+(\S+)$/m.exec(created.output) ?? [];
    const refusals: [string[], number, RegExp][] = [
      [['update', 'key_0000000000000000', '--plan', 'free'], 1, /no key has the id "key_0000000000000000"/],
      [['update', id], 2, /update needs something to change/],
      [['update', id, '--plan', 'enterprise', '--per-minute', '0', '--per-day', '10'], 2, /--per-minute must be a whole number/],
      [['update', id, '--plan', 'gold'], 2, /--plan "gold"/],
      [['update', id, '--expires-in', 'soon'], 2, /--expires-in "soon"/],
      [['show', 'key_0000000000000000'], 1, /no key has the id "key_0000000000000000"/],
    ];
    // Each changes nothing, so they run side by side: one CLI process each costs seconds.
    const results = await Promise.all(refusals.map(([args]) => keys(...args)));
    refusals.forEach(([args, code, message], i) => {
      expect(results[i]!.code, args.join(' ')).toBe(code);
      expect(results[i]!.output).toMatch(message);
    });
    expect(await keys('revoke', id)).toMatchObject({ code: 0 });
    const onRevoked = await keys('update', id, '--plan', 'business');
    expect(onRevoked.code).toBe(1);
    expect(onRevoked.output).toContain(`${id} is revoked, and a revoked key stays so: nothing changed`);
    const shown = await keys('show', id);
    expect(shown.output).toMatch(/^plan:\s+pro \(300\/min, 10000\/day\), customer$/m);
    expect(shown.output).toMatch(/^state:\s+revoked$/m);
    expect(shown.output).toMatch(/^updated:\s+-$/m);
  });

  it('unbans a key a retry loop got banned: both instances admit it again within 5 s, and show says it is not banned', async () => {
    const created = await keys('create', '--plan', 'free', '--label', 'retry loop');
    const [, id = ''] = /^id:\s+(\S+)$/m.exec(created.output) ?? [];
    const [, key = ''] = /^key:\s+(\S+)$/m.exec(created.output) ?? [];
    // 60 admitted, then 20 refusals ignored: the 20th strike starts the ban, and both instances answer it.
    const statuses: number[] = [];
    for (let i = 0; i < 85; i++) statuses.push(await statusOf(urls[i % 2]!, key));
    expect(statuses.filter((status) => status === 200)).toHaveLength(60);
    expect(statuses.at(-1)).toBe(429);
    const banned = (await keys('show', id)).output;
    expect(banned).toMatch(/^banned:\s+yes, every request refused until \d{4}-/m);
    expect(banned, 'the ban spent the strikes that earned it').toMatch(/^strikes: 0 of 20 within 600 s$/m);
    for (const url of urls) expect(await statusOf(url, key)).toBe(429);

    const unbanned = await keys('unban', id);
    expect(unbanned.code, unbanned.output).toBe(0);
    expect(unbanned.output).toContain(`Unbanned ${id}: its quota starts over`);
    const unbannedAt = Date.now();
    const admitted = await Promise.all(
      urls.map(async (url) => {
        while (Date.now() - unbannedAt < 8_000) {
          if ((await statusOf(url, key)) === 200) return Date.now();
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        throw new Error(`${url} still refuses the key 8 s after unban`);
      }),
    );
    for (const at of admitted) expect(at - unbannedAt, 'within the 5 s an instance answers a refusal itself').toBeLessThanOrEqual(5_000);
    expect((await keys('show', id)).output).toMatch(/^banned:\s+no$/m);
    expect(await keys('unban', 'key_0000000000000000')).toMatchObject({ code: 1, output: expect.stringMatching(/no key has the id "key_0000000000000000"/) });
  });
});
