import { afterAll, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { MAX_BAN_STRIKES } from '../../src/domain/quota/ban-policy.js';
import { nodesOf } from '../support/test-cluster.js';
import { useTestCluster } from '../support/use-test-cluster.js';
import { useTestRedis } from '../support/use-test-redis.js';

const KEY = 'hammer-key-1';
const redis = useTestRedis();
const cluster = useTestCluster();
const stores: RunningPetStore[] = [];

afterAll(async () => {
  for (const store of stores) await store.close(0, 0);
});

/** A server on `store`, the key on the free plan (60 per minute) under the default ban (20 strikes in 10 min). */
const serve = async (environ: Record<string, string>): Promise<RunningPetStore> => {
  const store = await startPetStore({ PORT: '0', PETSTORE_ENV: 'test', PETSTORE_LOG_LEVEL: 'silent', PETSTORE_API_KEYS: `${KEY}:free`, ...environ });
  stores.push(store);
  return store;
};

/** The codes of `count` requests sent one after the other, as a client that ignores 429 does. */
const hammer = async (store: RunningPetStore, count: number): Promise<string[]> => {
  const codes: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${store.baseUrl}/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
    const body = (await response.json()) as { code?: string };
    codes.push(response.status === 200 ? '200' : `${response.status} ${String(body.code)}`);
  }
  return codes;
};

/** 60 admitted; the first refusal is no strike; 19 strikes refused; the 20th strike earns the ban and is answered with it. */
const EXPECTED = [...Array<string>(60).fill('200'), ...Array<string>(20).fill('429 rate_limited'), ...Array<string>(3).fill('429 api_key_banned')];

describe('the request that earns the ban is answered api_key_banned on every store', () => {
  it('memory', async () => {
    expect(await hammer(await serve({ PETSTORE_STORE: 'memory' }), EXPECTED.length)).toEqual(EXPECTED);
  });

  it('Redis: refusals answered by the instance count as strikes there, and the 20th is the ban', async () => {
    const store = await serve({ PETSTORE_STORE: 'redis', REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.freshPrefix() });
    expect(await hammer(store, EXPECTED.length)).toEqual(EXPECTED);
  });

  it('a Redis Cluster, likewise; a second instance sees the ban within 100 ms', async () => {
    const prefix = cluster.freshPrefix();
    const nodes = nodesOf(cluster.cluster)
      .map(({ host, port }) => `${host}:${port}`)
      .join(',');
    const [one, two] = [await serve({ PETSTORE_STORE: 'redis', REDIS_CLUSTER_NODES: nodes, PETSTORE_REDIS_PREFIX: prefix }), await serve({ PETSTORE_STORE: 'redis', REDIS_CLUSTER_NODES: nodes, PETSTORE_REDIS_PREFIX: prefix })];
    expect(await hammer(one, EXPECTED.length)).toEqual(EXPECTED);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await hammer(two, 1)).toEqual(['429 api_key_banned']);
  });
});

describe('a ban of the most strikes the configuration accepts (PETSTORE_BAN_STRIKES=1000)', () => {
  // One request a minute: 1 admitted, the first refusal, 999 strikes refused, the 1000th strike banned.
  const MOST = { PETSTORE_BAN_STRIKES: String(MAX_BAN_STRIKES), PETSTORE_API_KEYS: `${KEY}:enterprise:1:1000` };
  const expected = ['200', ...Array<string>(MAX_BAN_STRIKES).fill('429 rate_limited'), '429 api_key_banned'];

  it('memory', async () => {
    expect(await hammer(await serve({ ...MOST, PETSTORE_STORE: 'memory' }), expected.length)).toEqual(expected);
  });

  it('Redis: the script keeps, reports and counts every one of them (past some 8,000 it failed)', async () => {
    const store = await serve({ ...MOST, PETSTORE_STORE: 'redis', REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.freshPrefix() });
    expect(await hammer(store, expected.length)).toEqual(expected);
  });
});
