import { afterAll, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';

const KEY = 'outage-key-1';

interface Probe {
  readonly status: number;
  readonly code: string | undefined;
  readonly ms: number;
}

/** One request, timed; a hang shows as a long `ms`, never as a stuck test (fetch gives up after 5 s). */
async function probe(url: string, init: RequestInit = {}): Promise<Probe> {
  const started = performance.now();
  const response = await fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, code: body.code, ms: performance.now() - started };
}

/** A bounded load loop: `count` rounds of `parallel` requests, list and create alternating. */
async function load(baseUrl: string, count: number, parallel: number): Promise<Probe[]> {
  const probes: Probe[] = [];
  for (let round = 0; round < count; round++) {
    const batch = Array.from({ length: parallel }, (_, i) =>
      i % 2 === 0 ? probe(`${baseUrl}/pets?limit=5`) : probe(`${baseUrl}/pets`, { method: 'POST', body: JSON.stringify({ name: 'Load', categoryId: 1 }) }),
    );
    probes.push(...(await Promise.all(batch)));
  }
  return probes;
}

describe('a Redis outage', () => {
  let redis: RedisServerProcess | undefined;
  let server: CliProcess | undefined;

  /** The store outage lines of the server's log, in order. */
  const outageLines = (output: string): string[] => [...output.matchAll(/"msg":"store (unavailable|available again)"/g)].map((match) => (match[1] === 'unavailable' ? 'unavailable' : 'available'));

  afterAll(async () => {
    server?.kill();
    await server?.exited();
    await redis?.stop();
  });

  it('is answered with 503 service_unavailable within a second, crashes nothing, and heals without a restart', async () => {
    redis = await startRedisServer();
    const port = redis.port;
    server = startCli({ PORT: '0', PETSTORE_ENV: 'production', PETSTORE_API_KEYS: `${KEY}:enterprise:100000:10000000`, REDIS_URL: redis.url });
    const [, baseUrl = ''] = await server.waitFor(/listening on (\S+)/);

    const healthy = await load(baseUrl, 5, 10);
    expect(healthy.every((p) => p.status === 200 || p.status === 201)).toBe(true);

    // Killed, as a crash would: connections drop and reconnection is refused.
    await redis.stop();
    const down = await load(baseUrl, 5, 10);
    for (const p of down) {
      expect(p).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(p.ms).toBeLessThan(1_000);
    }

    redis = await startRedisServer(port);
    const deadline = Date.now() + 10_000;
    let recovered: Probe[];
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      recovered = await load(baseUrl, 1, 10);
    } while (!recovered.every((p) => p.status < 300) && Date.now() < deadline);
    expect(recovered.map((p) => p.status)).toEqual(Array(10).fill(0).map((_, i) => (i % 2 === 0 ? 200 : 201)));
    expect(server.child.exitCode).toBeNull();
    // One line when it went away, naming the cause, and one when it came back, however many requests failed between.
    await server.waitFor(/"store":"redis","downMs":\d+,"msg":"store available again"/);
    expect(outageLines(server.output())).toEqual(['unavailable', 'available']);
    expect(server.output()).toMatch(/"level":40,[^\n]*"store":"redis","cause":"[^"]+","msg":"store unavailable"/);
  });

  it('that hangs rather than refuses (a stopped process) still answers within a second, and loses nothing it acknowledged', async () => {
    if (redis === undefined || server === undefined) throw new Error('runs after the previous test');
    const [, baseUrl = ''] = /listening on (\S+)/.exec(server.output()) ?? [];
    const acked = await probe(`${baseUrl}/pets`, { method: 'POST', body: JSON.stringify({ name: 'Kept', categoryId: 3 }) });
    expect(acked.status).toBe(201);
    const listBefore = await fetch(`${baseUrl}/pets?limit=100`, { headers: { authorization: `Bearer ${KEY}` } });
    const before = (await listBefore.json()) as unknown[];

    // Past the 5 s key cache: concurrent requests then make their key lookups and quota
    // checks on the frozen Redis too, and must still wait out at most one timeout.
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    process.kill(redis.pid, 'SIGSTOP');
    try {
      const hung = await load(baseUrl ?? '', 2, 6);
      for (const p of hung) {
        expect(p).toMatchObject({ status: 503, code: 'service_unavailable' });
        expect(p.ms).toBeLessThan(1_000);
      }
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }

    const deadline = Date.now() + 10_000;
    let after: Response;
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = await fetch(`${baseUrl}/pets?limit=100`, { headers: { authorization: `Bearer ${KEY}` } });
    } while (after.status !== 200 && Date.now() < deadline);
    const listed = (await after.json()) as unknown[];
    expect(listed.slice(0, before.length)).toEqual(before);
    // A frozen Redis closes no connection: the timed-out calls say it, and the first PING answered after.
    await server.waitFor(/(?:"msg":"store available again"[^]*){2}/);
    expect(outageLines(server.output())).toEqual(['unavailable', 'available', 'unavailable', 'available']);
  });
});
