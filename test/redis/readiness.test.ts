import { afterAll, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { parsePrometheus } from '../support/prometheus-text.js';
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
