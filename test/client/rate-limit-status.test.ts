import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_STATUS_RULE } from '../../src/adapters/http/contract/rate-limit-status-rule.js';
import { PetStoreClient } from '../../src/client.js';
import { assertMatchesOpenApi } from '../support/openapi-validator.js';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';
import { rejection } from './rejection.js';

const KEY = 'client-status-1';
const PER_MINUTE = 30;
const PER_DAY = 400;

/** A fetch that checks every answer against the OpenAPI document. */
const checkedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : input);
  const text = await response.clone().text();
  assertMatchesOpenApi(init?.method ?? 'GET', url.href, { status: response.status, headers: response.headers, body: JSON.parse(text) as unknown });
  return response;
};

let store: TestPetStore;
beforeAll(async () => {
  store = await startTestPetStore({ extraApiKeys: [`${KEY}:enterprise:${PER_MINUTE}:${PER_DAY}`] });
});
afterAll(async () => {
  await store.close();
});

describe('PetStoreClient.rateLimitStatus()', () => {
  it('reads the plan and each rule without spending them, until the route refuses with 429 rate_limited', async () => {
    const client = new PetStoreClient({ baseUrl: store.baseUrl, apiKey: KEY, fetch: checkedFetch, retry: { maxAttempts: 1 } });
    await client.listPets({ limit: 1 });
    await client.inventory();
    const status = await client.rateLimitStatus();
    expect(status.plan).toBe('enterprise');
    expect(status.bannedUntil).toBeNull();
    expect(status.rules.map(({ name, limit, windowSeconds, remaining }) => ({ name, limit, windowSeconds, remaining }))).toEqual([
      { name: 'minute', limit: PER_MINUTE, windowSeconds: 60, remaining: PER_MINUTE - 2 },
      { name: 'day', limit: PER_DAY, windowSeconds: 86_400, remaining: PER_DAY - 2 },
    ]);
    // A built-in plan's rules count every request at 1 and give nothing back: no match, no cost, no refund (the client's type knows all four).
    expect(status.rules.map(({ mode, match, cost, refund }) => ({ mode, match, cost, refund }))).toEqual([
      { mode: 'enforce', match: undefined, cost: undefined, refund: undefined },
      { mode: 'enforce', match: undefined, cost: undefined, refund: undefined },
    ]);
    // The fields of its answer say the same after the route's own rule, and reading again finds nothing spent.
    const own = RATE_LIMIT_STATUS_RULE.name;
    const remainingByRule = (): Record<string, number | undefined> =>
      Object.fromEntries(client.rateLimit?.rules.map((rule) => [rule.name, rule.remaining]) ?? []);
    expect(remainingByRule()).toEqual({ [own]: RATE_LIMIT_STATUS_RULE.limit - 1, minute: PER_MINUTE - 2, day: PER_DAY - 2 });
    for (let i = 1; i < RATE_LIMIT_STATUS_RULE.limit; i++) expect((await client.rateLimitStatus()).rules).toEqual(status.rules);
    const refused = await rejection(client.rateLimitStatus());
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(remainingByRule()).toEqual({ [own]: 0, minute: PER_MINUTE - 2, day: PER_DAY - 2 });
  });
});
