import { afterAll, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { parsePrometheus } from '../support/prometheus-text.js';
import { createTestDatabase, type TestDatabase } from '../support/test-postgres.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';

const KEY = 'ready-key-1';

const readyz = async (admin: string): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${admin}/readyz`, { signal: AbortSignal.timeout(3_000) });
  return { status: response.status, body: await response.json() };
};

describe('readiness on Redis', () => {
  let redis: RedisServerProcess | undefined;
  let cli: CliProcess | undefined;

  afterAll(async () => {
    cli?.kill();
    await cli?.exited();
    await redis?.stop();
  });

  it('turns 503 naming redis within a second of its Redis stopping, counts the 503s, and 200 again after it restarts', async () => {
    redis = await startRedisServer();
    const port = redis.port;
    cli = startCli({
      PORT: '0',
      PETSTORE_ENV: 'production',
      PETSTORE_ADMIN_PORT: '0',
      PETSTORE_ACCESS_LOG: 'off',
      PETSTORE_API_KEYS: `${KEY}:pro`,
      REDIS_URL: redis.url,
    });
    const [, base = ''] = await cli.waitFor(/listening on (\S+\/v1)/);
    const [, admin = ''] = await cli.waitFor(/Admin listening on (\S+)/);
    expect(await readyz(admin)).toEqual({ status: 200, body: { status: 'ready', stores: ['redis'] } });

    await redis.stop();
    const stoppedAt = Date.now();
    let seen = await readyz(admin);
    while (seen.status !== 503 && Date.now() - stoppedAt < 3_000) seen = await readyz(admin);
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    expect(seen).toMatchObject({ status: 503, body: { status: 'unavailable', failed: [{ store: 'redis' }] } });

    const refused = await fetch(`${base}/pets`, { headers: { authorization: `Bearer ${KEY}` } });
    await refused.arrayBuffer();
    expect(refused.status).toBe(503);
    const down = parsePrometheus(await (await fetch(`${admin}/metrics`)).text());
    expect(down.get('petstore_store_errors_total{operation="listPets",store="redis"}')).toBe(1);
    expect(down.get('petstore_store_up{store="redis"}')).toBe(0);
    expect(down.get('petstore_http_requests_total{method="GET",route="/pets",status="503"}')).toBe(1);

    redis = await startRedisServer(port);
    const restartedAt = Date.now();
    do seen = await readyz(admin);
    while (seen.status !== 200 && Date.now() - restartedAt < 5_000 && (await new Promise((resolve) => setTimeout(resolve, 50, true))));
    expect(seen).toEqual({ status: 200, body: { status: 'ready', stores: ['redis'] } });
    const up = parsePrometheus(await (await fetch(`${admin}/metrics`)).text());
    expect(up.get('petstore_store_up{store="redis"}')).toBe(1);
  });
});

/** Polls /readyz until `done` holds of its answer, or `timeoutMs` passes; the last answer. */
const readyzUntil = async (
  admin: string,
  done: (seen: { status: number; body: unknown }) => boolean,
  timeoutMs = 5_000,
): Promise<{ status: number; body: unknown }> => {
  const started = Date.now();
  let seen = await readyz(admin);
  while (!done(seen) && Date.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = await readyz(admin);
  }
  return seen;
};

describe('readiness while the API is served without its quota Redis (PETSTORE_STORE=postgres)', () => {
  let redis: RedisServerProcess | undefined;
  let database: TestDatabase | undefined;
  const running: CliProcess[] = [];

  afterAll(async () => {
    for (const cli of running) {
      cli.kill();
      await cli.exited();
    }
    await redis?.stop();
    await database?.drop();
  });

  it('stays 200 naming redis as degraded, counts it, logs it and serves the API; 503 with PETSTORE_READY_ON_DEGRADED=fail; ready again after Redis returns', async () => {
    redis = await startRedisServer();
    database = await createTestDatabase();
    const port = redis.port;
    const start = async (environ: Record<string, string>): Promise<{ cli: CliProcess; base: string; admin: string }> => {
      const cli = startCli({
        PORT: '0',
        PETSTORE_ENV: 'production',
        PETSTORE_STORE: 'postgres',
        DATABASE_URL: database?.url ?? '',
        REDIS_URL: redis?.url ?? '',
        PETSTORE_ADMIN_PORT: '0',
        PETSTORE_ACCESS_LOG: 'off',
        PETSTORE_API_KEYS: `${KEY}:pro`,
        ...environ,
      });
      running.push(cli);
      const [, base = ''] = await cli.waitFor(/listening on (\S+\/v1)/);
      const [, admin = ''] = await cli.waitFor(/Admin listening on (\S+)/);
      return { cli, base, admin };
    };
    const served = await start({});
    const strict = await start({ PETSTORE_READY_ON_DEGRADED: 'fail' });
    expect(await readyz(served.admin)).toEqual({ status: 200, body: { status: 'ready', stores: ['postgres', 'redis'] } });

    await redis.stop();
    const degraded = await readyzUntil(served.admin, (seen) => (seen.body as { status?: string }).status === 'degraded');
    expect(degraded).toEqual({
      status: 200,
      body: {
        status: 'degraded',
        stores: ['postgres', 'redis'],
        degraded: [{ store: 'redis', reason: expect.stringMatching(/^no connection to Redis \(the client [a-z ]+\)$/), detail: expect.any(String), fallback: 'PETSTORE_QUOTA_FALLBACK=local' }],
      },
    });
    expect(await readyzUntil(strict.admin, (seen) => seen.status === 503)).toEqual({
      status: 503,
      body: { status: 'unavailable', stores: ['postgres', 'redis'], failed: [{ store: 'redis', reason: expect.stringMatching(/^no connection to Redis \(the client [a-z ]+\)$/), detail: expect.any(String) }] },
    });
    const listed = await fetch(`${served.base}/pets`, { headers: { authorization: `Bearer ${KEY}` } });
    await listed.arrayBuffer();
    expect(listed.status).toBe(200);
    const metrics = parsePrometheus(await (await fetch(`${served.admin}/metrics`)).text());
    expect([metrics.get('petstore_store_up{store="redis"}'), metrics.get('petstore_store_degraded{store="redis"}'), metrics.get('petstore_store_up{store="postgres"}')]).toEqual([0, 1, 1]);
    await served.cli.waitFor(/"store":"redis",[^\n]*"degraded":true,"fallback":"PETSTORE_QUOTA_FALLBACK=local","msg":"store unavailable; serving degraded"/);

    redis = await startRedisServer(port);
    expect(await readyzUntil(served.admin, (seen) => seen.status === 200 && (seen.body as { status?: string }).status === 'ready')).toEqual({
      status: 200,
      body: { status: 'ready', stores: ['postgres', 'redis'] },
    });
    expect(await readyzUntil(strict.admin, (seen) => seen.status === 200)).toMatchObject({ status: 200 });
    await served.cli.waitFor(/"store":"redis","downMs":\d+,"degraded":false,"msg":"store available again; no longer degraded"/);
    const recovered = parsePrometheus(await (await fetch(`${served.admin}/metrics`)).text());
    expect([recovered.get('petstore_store_up{store="redis"}'), recovered.get('petstore_store_degraded{store="redis"}')]).toEqual([1, 0]);
  });
});

describe('readiness with workers', () => {
  let redis: RedisServerProcess | undefined;
  let cli: CliProcess | undefined;

  afterAll(async () => {
    cli?.kill();
    await cli?.exited();
    await redis?.stop();
  });

  it('answers the documented shape, {store, reason} in failed, and one 0-or-1 petstore_store_up for two workers', async () => {
    redis = await startRedisServer();
    cli = startCli({
      PORT: '0',
      PETSTORE_ENV: 'production',
      PETSTORE_STORE: 'redis',
      PETSTORE_WORKERS: '2',
      PETSTORE_ADMIN_PORT: '0',
      PETSTORE_ACCESS_LOG: 'off',
      PETSTORE_API_KEYS: `${KEY}:pro`,
      REDIS_URL: redis.url,
    });
    await cli.waitFor(/listening on (\S+\/v1)/);
    const [, admin = ''] = await cli.waitFor(/Admin listening on (\S+)/);
    expect(await readyz(admin)).toEqual({ status: 200, body: { status: 'ready', stores: ['redis'], workers: { listening: 2, expected: 2 } } });
    expect(parsePrometheus(await (await fetch(`${admin}/metrics`)).text()).get('petstore_store_up{store="redis"}')).toBe(1);

    await redis.stop();
    const down = await readyzUntil(admin, (seen) => seen.status === 503);
    expect(down).toEqual({
      status: 503,
      body: { status: 'unavailable', stores: ['redis'], failed: [{ store: 'redis', reason: expect.stringMatching(/^no connection to Redis \(the client [a-z ]+\)$/), detail: expect.any(String) }], workers: { listening: 2, expected: 2 } },
    });
    expect(parsePrometheus(await (await fetch(`${admin}/metrics`)).text()).get('petstore_store_up{store="redis"}')).toBe(0);
  });
});
