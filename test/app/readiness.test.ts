import { AggregatorRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/app/admin/metrics.js';
import { readinessOf, readinessPolicyOf } from '../../src/app/admin/readiness.js';
import { checkStores, ProbeFailure, type StoreStatus } from '../../src/app/admin/store-probes.js';
import { loadConfig, type PetStoreConfig } from '../../src/app/config/config.js';
import { pingFailure } from '../../src/app/container/redis-quotas.js';
import { parsePrometheus } from '../support/prometheus-text.js';

const configOf = (environ: Record<string, string>): PetStoreConfig => {
  const loaded = loadConfig({ PETSTORE_ENV: 'test', ...environ });
  if (!loaded.ok) throw new Error(loaded.error.join('\n'));
  return loaded.value;
};

const UP = (store: string): StoreStatus => ({ store, up: true });
const DOWN = (store: string, reason = `${store} down`): StoreStatus => ({ store, up: false, reason });

describe('readiness: whether this instance can serve', () => {
  it('is 200 "ready" naming the stores while every store answers', () => {
    expect(readinessOf([UP('postgres'), UP('redis')], readinessPolicyOf(configOf({ PETSTORE_STORE: 'postgres' })))).toEqual({
      ready: true,
      body: { status: 'ready', stores: ['postgres', 'redis'] },
    });
  });

  it.each(['local', 'allow'])('is 200 "degraded" naming Redis and its fallback while the quota Redis of postgres is down under PETSTORE_QUOTA_FALLBACK=%s', (fallback) => {
    const policy = readinessPolicyOf(configOf({ PETSTORE_STORE: 'postgres', PETSTORE_QUOTA_FALLBACK: fallback }));
    expect(readinessOf([UP('postgres'), DOWN('redis', 'no connection')], policy)).toEqual({
      ready: true,
      body: { status: 'degraded', stores: ['postgres', 'redis'], degraded: [{ store: 'redis', reason: 'no connection', fallback: `PETSTORE_QUOTA_FALLBACK=${fallback}` }] },
    });
  });

  it.each([
    ['PETSTORE_READY_ON_DEGRADED=fail', { PETSTORE_STORE: 'postgres', PETSTORE_READY_ON_DEGRADED: 'fail' }, [UP('postgres'), DOWN('redis')]],
    ['PETSTORE_QUOTA_FALLBACK=deny (every request refused)', { PETSTORE_STORE: 'postgres', PETSTORE_QUOTA_FALLBACK: 'deny' }, [UP('postgres'), DOWN('redis')]],
    ['the records store down (PostgreSQL)', { PETSTORE_STORE: 'postgres' }, [DOWN('postgres'), UP('redis')]],
    ['the records store down (Redis, which holds them with PETSTORE_STORE=redis)', { PETSTORE_STORE: 'redis' }, [DOWN('redis')]],
  ] as const)('is 503 "unavailable" with {store, reason} under %s', (_case, environ, stores) => {
    const { ready, body } = readinessOf(stores, readinessPolicyOf(configOf(environ)));
    expect(ready).toBe(false);
    expect(body).toEqual({ status: 'unavailable', stores: stores.map(({ store }) => store), failed: stores.filter(({ up }) => !up).map(({ store, reason }) => ({ store, reason })) });
  });

  it('refuses a PETSTORE_READY_ON_DEGRADED other than ready or fail at start', () => {
    expect(loadConfig({ PETSTORE_READY_ON_DEGRADED: 'maybe' })).toEqual({ ok: false, error: ['PETSTORE_READY_ON_DEGRADED="maybe": must be one of ready, fail'] });
    expect(configOf({}).readyOnDegraded).toBe('ready');
  });

  it("words a failed Redis PING for an operator, ioredis's own text after it", () => {
    // A plain reason; the client's own text apart, as a detail.
    expect(pingFailure('reconnecting', "Stream isn't writeable and enableOfflineQueue options is false")).toEqual({
      reason: 'no connection to Redis (the client is reconnecting)',
      detail: "Stream isn't writeable and enableOfflineQueue options is false",
    });
    expect(pingFailure('ready', 'Connection is closed.')).toEqual({ reason: 'no connection to Redis (the client lost it)', detail: 'Connection is closed.' });
    expect(pingFailure('ready', 'Command timed out')).toEqual({ reason: 'Redis did not answer PING in time', detail: 'Command timed out' });
  });

  it('keeps a probe failure\'s detail beside its reason in /readyz', async () => {
    const [status] = await checkStores([{ store: 'redis', ping: () => Promise.reject(new ProbeFailure({ reason: 'no connection to Redis (the client lost it)', detail: 'Connection is closed.' })) }], 1_000);
    expect(status).toEqual({ store: 'redis', up: false, reason: 'no connection to Redis (the client lost it)', detail: 'Connection is closed.' });
    const policy = readinessPolicyOf(configOf({ PETSTORE_STORE: 'redis' }));
    expect(readinessOf([status!], policy).body.failed).toEqual([{ store: 'redis', reason: 'no connection to Redis (the client lost it)', detail: 'Connection is closed.' }]);
  });
});

describe('the store gauges', () => {
  it('say a store the API is served without is degraded while it is down, and add up over workers to one 0-or-1 value per store', async () => {
    const fallbacks = readinessPolicyOf(configOf({ PETSTORE_STORE: 'postgres' })).fallbacks;
    let redisUp = true;
    const probes = [
      { store: 'postgres', ping: () => Promise.resolve() },
      { store: 'redis', ping: () => (redisUp ? Promise.resolve() : Promise.reject(new Error('down'))) },
    ];
    const workers = [createMetrics(probes, fallbacks), createMetrics(probes, fallbacks)];
    const added = async () => {
      const workerMetrics = await Promise.all(workers.map(async (metrics) => [...(await metrics.json())]));
      return parsePrometheus(await AggregatorRegistry.aggregate(workerMetrics).metrics());
    };

    const up = await added();
    expect([up.get('petstore_store_up{store="postgres"}'), up.get('petstore_store_up{store="redis"}'), up.get('petstore_store_degraded{store="redis"}')]).toEqual([1, 1, 0]);
    expect(up.has('petstore_store_degraded{store="postgres"}')).toBe(false);
    redisUp = false;
    const down = await added();
    expect([down.get('petstore_store_up{store="postgres"}'), down.get('petstore_store_up{store="redis"}'), down.get('petstore_store_degraded{store="redis"}')]).toEqual([1, 0, 1]);
  });
});
