import { afterAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_STATUS_RULE } from '../../src/adapters/http/contract/rate-limit-status-rule.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { assertMatchesOpenApi } from '../support/openapi-validator.js';
import { nodesOf } from '../support/test-cluster.js';
import { useTestCluster } from '../support/use-test-cluster.js';
import { useTestRedis } from '../support/use-test-redis.js';

const KEY = 'status-key-1';
const PER_MINUTE = 5;
const PER_DAY = 100;
const redis = useTestRedis();
const cluster = useTestCluster();
const stores: RunningPetStore[] = [];

afterAll(async () => {
  for (const store of stores) await store.close(0, 0);
});

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { readonly code?: string; readonly rules?: readonly { readonly remaining: number }[]; readonly bannedUntil?: number | null };
}

/** `path` with the key, checked against the OpenAPI document. */
const get = async (store: RunningPetStore, path: string): Promise<Answer> => {
  const response = await fetch(`${store.baseUrl}${path}`, { headers: { authorization: `Bearer ${KEY}` } });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
  assertMatchesOpenApi('GET', response.url, answer);
  return answer;
};

const remaining = async (store: RunningPetStore): Promise<readonly number[]> => {
  const answer = await get(store, '/rate_limit');
  expect(answer.status).toBe(200);
  return answer.body.rules!.map((rule) => rule.remaining);
};

/**
 * The same as on the memory store (test/http/rate-limit-status.test.ts), through the Redis
 * scripts: the plan's counts read, not spent; the route's own rule; the ban's end.
 */
const holds = async (environ: Record<string, string>): Promise<void> => {
  const store = await startPetStore({ PORT: '0', PETSTORE_ENV: 'test', PETSTORE_LOG_LEVEL: 'silent', PETSTORE_API_KEYS: `${KEY}:enterprise:${PER_MINUTE}:${PER_DAY}`, ...environ });
  stores.push(store);
  for (let k = 0; k < 3; k++) await get(store, '/pets?limit=1');
  expect(await remaining(store)).toEqual([PER_MINUTE - 3, PER_DAY - 3]);
  expect(await remaining(store)).toEqual([PER_MINUTE - 3, PER_DAY - 3]);

  // A client ignoring 429: the rest of the minute's quota, one refusal, 20 strikes, the last earning the ban.
  const codes: string[] = [];
  let banned: Answer | undefined;
  for (let i = 0; i < PER_MINUTE - 3 + 21; i++) {
    banned = await get(store, '/pets?limit=1');
    codes.push(banned.body.code ?? String(banned.status));
  }
  expect(codes.at(-1)).toBe('api_key_banned');
  const bannedAt = Date.now() / 1000;
  const status = await get(store, '/rate_limit');
  expect(status.status).toBe(200);
  expect(Math.abs(status.body.bannedUntil! - (bannedAt + Number(banned!.headers.get('retry-after'))))).toBeLessThanOrEqual(2);
  expect(status.body.rules!.map((rule) => rule.remaining)).toEqual([0, 0]);

  // Three reads so far this minute: the route's own rule admits the rest of its limit, then refuses.
  for (let i = 3; i < RATE_LIMIT_STATUS_RULE.limit; i++) await remaining(store);
  const refused = await get(store, '/rate_limit');
  expect(refused.status).toBe(429);
  expect(refused.body.code).toBe('rate_limited');
  expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(61);
};

describe('GET /rate_limit reads the quota without spending it, and is limited by its own rule', () => {
  it('on Redis', async () => {
    await holds({ PETSTORE_STORE: 'redis', REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.freshPrefix() });
  });

  it('on a Redis Cluster', async () => {
    const nodes = nodesOf(cluster.cluster)
      .map(({ host, port }) => `${host}:${port}`)
      .join(',');
    await holds({ PETSTORE_STORE: 'redis', REDIS_CLUSTER_NODES: nodes, PETSTORE_REDIS_PREFIX: cluster.freshPrefix() });
  });
});
