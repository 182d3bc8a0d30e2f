import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';
import { parsePrometheus } from '../support/prometheus-text.js';

const LIMITED = 'workers-key-100';
const UNLIMITED = 'workers-key-unlimited';
const KEYS = `${LIMITED}:enterprise:100:100000,${UNLIMITED}:enterprise:1000000:100000000`;

interface Supervised {
  readonly cli: CliProcess;
  readonly url: URL;
  readonly admin: string;
}

/** Answers by status, or by the socket's error code for a request that got none. */
const countBy = (outcomes: readonly (number | string)[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
};

/** One GET on a connection of its own (so the kernel's round robin spreads them over the workers). */
const get = (url: URL, path: string, key: string): Promise<number | string> =>
  new Promise((resolve) => {
    const req = request({ hostname: url.hostname, port: url.port, path, agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(10_000, () => req.destroy(Object.assign(new Error('no answer within 10 s'), { code: 'TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });

const workerPids = (output: string): number[] => [...output.matchAll(/"workerPid":(\d+),"msg":"worker listening"/g)].map((match) => Number(match[1]));

describe('PETSTORE_WORKERS: several server processes on one port', () => {
  let redis: TestRedis;
  const running: CliProcess[] = [];

  const start = async (environ: Record<string, string> = {}): Promise<Supervised> => {
    const cli = startCli({
      PORT: '0',
      PETSTORE_ENV: 'test',
      PETSTORE_STORE: 'redis',
      PETSTORE_WORKERS: '2',
      PETSTORE_ADMIN_PORT: '0',
      PETSTORE_API_KEYS: KEYS,
      REDIS_URL: redis.url,
      PETSTORE_REDIS_PREFIX: `${redis.prefix}${running.length}:`,
      ...environ,
    });
    running.push(cli);
    const [, url = ''] = await cli.waitFor(/listening on (\S+)/);
    const [, admin = ''] = await cli.waitFor(/Admin listening on (\S+)/);
    return { cli, url: new URL(url), admin };
  };

  beforeAll(async () => {
    redis = await acquireTestRedis();
  });
  afterEach(async () => {
    for (const cli of running.splice(0)) {
      cli.kill('SIGKILL');
      await cli.exited();
    }
  });
  afterAll(async () => {
    await redis.cleanup();
  });

  it('admits exactly 100 of 150 concurrent requests on a key of 100 a minute, served by both workers, and /metrics adds up both', async () => {
    const { cli, url, admin } = await start({ PETSTORE_ACCESS_LOG: 'on' });
    expect(cli.output()).toMatch(/\(test, redis store, 2 workers\) listening/);
    const outcomes = await Promise.all(Array.from({ length: 150 }, () => get(url, '/v1/pets?limit=1', LIMITED)));
    expect(countBy(outcomes)).toEqual({ 200: 100, 429: 50 });

    // /metrics flushes each worker's counts, and so its access lines, before it answers.
    const metrics = parsePrometheus(await (await fetch(`${admin}/metrics`)).text());
    expect(metrics.get('petstore_http_requests_total{method="GET",route="/pets",status="200"}')).toBe(100);
    expect(metrics.get('petstore_http_requests_total{method="GET",route="/pets",status="429"}')).toBe(50);
    expect(metrics.get('petstore_http_request_duration_seconds_count{method="GET",route="/pets"}')).toBe(150);
    expect(metrics.get('petstore_workers_up')).toBe(2);

    // Each access line names the process that answered: both workers did.
    await sleep(200);
    const answeredBy = new Set([...cli.output().matchAll(/"pid":(\d+)[^\n]*"route":"\/pets"/g)].map((match) => Number(match[1])));
    expect([...answeredBy].sort()).toEqual(workerPids(cli.output()).sort());
  });

  it('replaces a killed worker, logs its death, answers /readyz 503 until the replacement listens, and loses no request beyond the dead worker’s own', async () => {
    const { cli, url, admin } = await start();
    const [victim, survivor] = workerPids(cli.output());
    expect((await fetch(`${admin}/readyz`)).status).toBe(200);

    // Ten clients, each sending one request after another on a new connection, while a worker is killed.
    let sending = true;
    const outcomes: (number | string)[] = [];
    const clients = Array.from({ length: 10 }, async () => {
      while (sending) outcomes.push(await get(url, '/v1/pets?limit=5', UNLIMITED));
    });
    await sleep(300);
    process.kill(victim!, 'SIGKILL');
    const readiness: number[] = [];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const status = (await fetch(`${admin}/readyz`)).status;
      readiness.push(status);
      if (status === 200 && readiness.includes(503)) break;
      await sleep(20);
    }
    const killedAt = outcomes.length;
    await sleep(300);
    sending = false;
    await Promise.all(clients);

    expect(readiness).toContain(503);
    expect(readiness.at(-1)).toBe(200);
    await cli.waitFor(new RegExp(`"workerPid":${victim},"code":null,"signal":"SIGKILL","msg":"worker died; starting another"`));
    const pids = workerPids(cli.output());
    expect(pids).toHaveLength(3);
    expect(pids).toContain(survivor);
    // Only requests on the killed worker's connections may go unanswered: at most one per client.
    const lost = outcomes.filter((outcome) => outcome !== 200);
    expect(lost.length).toBeLessThanOrEqual(10);
    for (const outcome of lost) expect(['ECONNRESET', 'EPIPE']).toContain(outcome);
    expect(outcomes.slice(killedAt).filter((outcome) => outcome !== 200)).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(killedAt);
  });

  it('keeps a dead worker’s counts in /metrics: the sums over workers never go down (Prometheus would read a counter reset)', async () => {
    const { cli, url, admin } = await start({ PETSTORE_ACCESS_LOG: 'on' });
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => get(url, '/v1/pets?limit=1', UNLIMITED)));
    expect(countBy(outcomes)).toEqual({ 200: 200 });
    const counted = async (): Promise<number | undefined> =>
      parsePrometheus(await (await fetch(`${admin}/metrics`)).text()).get('petstore_http_requests_total{method="GET",route="/pets",status="200"}');
    expect(await counted()).toBe(200);

    // The worker that answered most of them dies; its replacement starts from nothing.
    await sleep(200);
    const answered = countBy([...cli.output().matchAll(/"pid":(\d+)[^\n]*"route":"\/pets"/g)].map((match) => Number(match[1])));
    const [victim] = Object.entries(answered).sort(([, a], [, b]) => b - a)[0] ?? [];
    expect(Number(answered[victim ?? ''])).toBeGreaterThan(0);
    process.kill(Number(victim), 'SIGKILL');
    await cli.waitFor(new RegExp(`"workerPid":${victim},"code":null,"signal":"SIGKILL","msg":"worker died; starting another"`));
    const deadline = Date.now() + 10_000;
    while (workerPids(cli.output()).length < 3 && Date.now() < deadline) await sleep(50);
    expect(workerPids(cli.output())).toHaveLength(3);

    expect(await counted()).toBe(200);
    expect(await get(url, '/v1/pets?limit=1', UNLIMITED)).toBe(200);
    expect(await counted()).toBe(201);
  });

  it('drains every worker on SIGTERM: a burst sent as the signal arrives is answered in full, and the supervisor exits 0', async () => {
    const { cli, url, admin } = await start({ PETSTORE_DRAIN_SECONDS: '1' });
    const burst = Array.from({ length: 60 }, () => get(url, '/v1/pets?limit=100', UNLIMITED));
    await sleep(5);
    cli.kill('SIGTERM');
    await sleep(100);
    // Seen once with a second suite beside it: the admin listener refused the connection. Its output tells why next time.
    const readiness = await fetch(`${admin}/readyz`).catch((error: unknown) => {
      throw new Error(`the admin listener is gone 100 ms after SIGTERM; the supervisor said:\n${cli.output()}`, { cause: error });
    });
    expect(readiness.status).toBe(503);
    expect(countBy(await Promise.all(burst))).toEqual({ 200: 60 });
    // Still serving during the drain.
    expect(await get(url, '/v1/pets?limit=1', UNLIMITED)).toBe(200);
    expect(await cli.exited()).toBe(0);
    expect(cli.output()).toMatch(/"failed":0,"msg":"shutdown: every worker exited"/);
  });

  it('serves the admin API from the supervisor: a key created there is admitted by the workers, and refused within 5 s of its revocation', async () => {
    const token = 'workers-admin-token-0123456789abcdef';
    const { cli, url, admin } = await start({ PETSTORE_ADMIN_TOKEN: token });
    expect(cli.output()).toMatch(/Admin listening on \S+ \(.*\/keys with the admin token/);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${admin}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const created = await call('POST', '/keys', { plan: 'pro', label: 'workers' });
    expect(created.status).toBe(201);
    const { key, secret } = (await created.json()) as { key: { id: string }; secret: string };
    const served = await Promise.all(Array.from({ length: 20 }, () => get(url, '/v1/pets?limit=1', secret)));
    expect(countBy(served)).toEqual({ 200: 20 });
    expect((await call('POST', `/keys/${key.id}/revoke`)).status).toBe(200);
    await sleep(5_100);
    const refused = await Promise.all(Array.from({ length: 20 }, () => get(url, '/v1/pets?limit=1', secret)));
    expect(countBy(refused)).toEqual({ 401: 20 });
  });

  it('refuses to start the memory store with more than one worker, saying what to set instead', async () => {
    const cli = startCli({ PORT: '0', PETSTORE_ENV: 'test', PETSTORE_STORE: 'memory', PETSTORE_WORKERS: '2' });
    running.push(cli);
    expect(await cli.exited()).toBe(1);
    expect(cli.output()).toMatch(/PETSTORE_WORKERS=2 needs a shared store.*PETSTORE_STORE=redis or postgres/);
  });

  it('exits 1 when its workers cannot start (Redis unreachable), naming the cause', async () => {
    const cli = startCli({ PORT: '0', PETSTORE_ENV: 'test', PETSTORE_STORE: 'redis', PETSTORE_WORKERS: '2', PETSTORE_API_KEYS: KEYS, REDIS_URL: 'redis://127.0.0.1:1' });
    running.push(cli);
    expect(await cli.exited()).toBe(1);
    expect(cli.output()).toMatch(/Redis/);
    expect(cli.output()).toMatch(/worker \d+ exited \(code 1\) before it listened/);
  });
});
