import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type PetStoreConfig } from '../../src/app/config/config.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { ManualClock } from '../support/manual-clock.js';

/*
 * The plans docs/plans.md walks through, shipped in examples/plans/: each loads through
 * PETSTORE_PLANS as it is, and each charges and refuses over HTTP as its file says.
 */

const EXAMPLES = new URL('../../examples/plans/', import.meta.url);
const pathOf = (file: string): string => new URL(file, EXAMPLES).pathname;

const loaded = (file: string, apiKeys = ''): PetStoreConfig => {
  const config = loadConfig({ PETSTORE_PLANS: pathOf(file), PETSTORE_API_KEYS: apiKeys });
  if (!config.ok) throw new Error(config.error.join('\n'));
  return config.value;
};

/** Each plan's rules as `name limit/windowMs kind [match] cost mode refund`, to read beside its file. */
const rulesOf = (config: PetStoreConfig): Record<string, readonly string[]> =>
  Object.fromEntries(
    [...config.plans].map(([name, plan]) => [
      name,
      plan.rules.map(({ name: rule, limit, windowMs, kind, match, cost, mode, refund }) =>
        [`${rule} ${limit}/${windowMs}`, kind, match && `[${match.join(' ')}]`, cost && `cost ${JSON.stringify(cost)}`, mode, refund && `refund ${refund.join(' ')}`]
          .filter(Boolean)
          .join(' '),
      ),
    ]),
  );

describe('the example plans files', () => {
  it('are the four the guide describes, each loaded by PETSTORE_PLANS as it is', () => {
    expect(readdirSync(EXAMPLES).sort()).toEqual(['concurrency.json', 'credits.json', 'github-like.json', 'mobile.json', 'stripe-like.json']);
    const writes = 'createPet updatePet placeOrder updateOrder cancelOrder';
    expect(rulesOf(loaded('github-like.json'))).toEqual({
      developer: ['hour 5000/3600000', 'search 30/60000 [listPets]', `writes 80/60000 [${writes}]`],
      trial: ['hour 60/3600000', 'search 10/60000 [listPets]'],
    });
    expect(rulesOf(loaded('stripe-like.json'))).toEqual({
      standard: [
        'budget 300/60000 cost {"createPet":5,"updatePet":5,"placeOrder":5,"updateOrder":5,"cancelOrder":5,"default":1} refund 5xx',
        'orders 20/60000 [placeOrder updateOrder cancelOrder] refund 5xx',
        'day 100000/86400000',
        `writes-next 30/60000 [${writes}] shadow`,
      ],
    });
    expect(rulesOf(loaded('mobile.json'))).toEqual({
      // 30 refilling 2 a second: full again in 15 s; 3 checkouts refilling one a minute.
      mobile: ['burst 30/15000 burst', 'hour 600/3600000', 'day 5000/86400000', 'checkout 3/180000 burst [placeOrder]'],
    });
  });

  it('keep a concurrency cap beside its plan\'s rules, with its match', () => {
    const config = loaded('concurrency.json');
    expect(rulesOf(config)).toEqual({ batch: ['minute 600/60000', 'day 100000/86400000'], checkout: ['minute 120/60000'] });
    expect(Object.fromEntries([...config.plans].map(([name, plan]) => [name, plan.concurrency]))).toEqual({
      batch: { name: 'inflight', limit: 10 },
      checkout: { name: 'orders-inflight', limit: 2, match: ['placeOrder', 'updateOrder', 'cancelOrder'] },
    });
  });

  it('keep credits beside their plan\'s rules: a monthly balance weighed by cost, and a one-off balance on some operations', () => {
    const config = loaded('credits.json');
    expect(rulesOf(config)).toEqual({ metered: ['minute 600/60000'], prepaid: ['minute 60/60000'] });
    expect(Object.fromEntries([...config.plans].map(([name, plan]) => [name, plan.credits]))).toEqual({
      metered: {
        name: 'monthly',
        credits: 10_000,
        refill: 'month',
        cost: { createPet: 10, updatePet: 10, placeOrder: 25, updateOrder: 10, cancelOrder: 10, default: 1 },
        refund: ['5xx'],
      },
      prepaid: { name: 'prepaid', credits: 500, match: ['listPets', 'getPet', 'createPet'] },
    });
  });

  it('let PETSTORE_API_KEYS name their plans', () => {
    const config = loaded('github-like.json', 'gh-dev-key-1:developer,gh-trial-key-1:trial:staff');
    expect(config.apiKeys.map(({ plan, role }) => `${plan.name} ${role}`)).toEqual(['developer customer', 'trial staff']);
  });
});

/**
 * Plain fetch, not the OpenAPI-checking HttpClient: the document still describes only the
 * built-in plans' `minute` and `day` fields, not a file plan's rule names.
 */
const client = (store: RunningPetStore, key: string) => ({
  request: async (method: string, path: string, options: { json?: unknown } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${store.baseUrl}${path}`, { method, headers, ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }) });
    await response.arrayBuffer();
    return { status: response.status, headers: response.headers };
  },
});

describe('the example plans over HTTP, on the memory store', () => {
  // Aligned to a second and to a day granule, as test/http/rate-limits.test.ts, so times are exact.
  const clock = new ManualClock(1_800_000_000_000);
  let github: RunningPetStore;
  let stripe: RunningPetStore;
  let mobile: RunningPetStore;
  let credits: RunningPetStore;
  const start = (file: string, apiKeys: string): Promise<RunningPetStore> =>
    startPetStore({ PETSTORE_ENV: 'test', PETSTORE_LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0', PETSTORE_PLANS: pathOf(file), PETSTORE_API_KEYS: apiKeys }, { clock });

  beforeAll(async () => {
    [github, stripe, mobile, credits] = await Promise.all([
      start('github-like.json', 'gh-trial-key-1:trial,gh-dev-key-01:developer'),
      start('stripe-like.json', 'stripe-key-01:standard'),
      start('mobile.json', 'mobile-key-01:mobile'),
      start('credits.json', 'metered-key-01:metered,prepaid-key-01:prepaid'),
    ]);
  });
  afterAll(async () => {
    await Promise.all([github.close(0, 0), stripe.close(0, 0), mobile.close(0, 0), credits.close(0, 0)]);
  });

  it('prepaid: 500 credits spent by listing, reading and creating pets, then 402 credits_exhausted with no Retry-After, while other operations go on', async () => {
    const api = client(credits, 'prepaid-key-01');
    expect((await api.request('POST', '/pets', { json: { name: 'Rex', categoryId: 1 } })).status).toBe(201);
    for (let i = 0; i < 59; i++) expect((await api.request('GET', '/pets/1')).status).toBe(200);
    // Two minutes on, the minute has all its room again (a sliding window forgets in steps); the balance does not come back.
    clock.advance(120_000);
    for (let i = 0; i < 7; i++) {
      for (let j = 0; j < 60; j++) expect((await api.request('GET', '/pets/1')).status).toBe(200);
      clock.advance(120_000);
    }
    for (let i = 0; i < 20; i++) expect((await api.request('GET', '/pets/1')).status).toBe(200);
    const refused = await api.request('GET', '/pets/1');
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([402, null]);
    // The inventory is not an operation the credits match.
    expect((await api.request('GET', '/store/inventory')).status).toBe(200);
  });

  it('github-like trial: ten searches a minute, then listPets is refused by the search rule while getPet still answers', async () => {
    const api = client(github, 'gh-trial-key-1');
    await api.request('POST', '/pets', { json: { name: 'Rex', categoryId: 1 } });
    for (let i = 1; i <= 10; i++) {
      const search = await api.request('GET', '/pets?limit=1');
      expect(search.status).toBe(200);
      // Both rules match a search: the search rule binds, with fewer left.
      expect(search.headers.get('ratelimit-policy')).toBe('"hour";q=60;w=3600, "search";q=10;w=60');
      expect(search.headers.get('x-ratelimit-remaining')).toBe(String(10 - i));
    }
    const refused = await api.request('GET', '/pets?limit=1');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('10');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const read = await api.request('GET', '/pets/1');
    expect(read.status).toBe(200);
    // Only the rule getPet matched is advertised; the hour counted the pet, ten searches and this read.
    expect(read.headers.get('ratelimit-policy')).toBe('"hour";q=60;w=3600');
    expect(read.headers.get('x-ratelimit-remaining')).toBe(String(60 - 12));
  });

  it('github-like developer: each request is told about the enforced rules it matched, and only those', async () => {
    const api = client(github, 'gh-dev-key-01');
    const policyOf = async (method: string, path: string, json?: unknown): Promise<string | null> =>
      (await api.request(method, path, json === undefined ? {} : { json })).headers.get('ratelimit-policy');
    expect(await policyOf('POST', '/pets', { name: 'Rex', categoryId: 1 })).toBe('"hour";q=5000;w=3600, "writes";q=80;w=60');
    expect(await policyOf('GET', '/pets?limit=1')).toBe('"hour";q=5000;w=3600, "search";q=30;w=60');
    expect(await policyOf('GET', '/pets/1')).toBe('"hour";q=5000;w=3600');
  });

  it('stripe-like standard: a write spends 5 of the minute budget (1 of the day), a read 1, and the shadow rule refuses nothing', async () => {
    const api = client(stripe, 'stripe-key-01');
    const created = await api.request('POST', '/pets', { json: { name: 'Rex', categoryId: 1 } });
    expect(created.status).toBe(201);
    // The shadow rule writes-next is counted, never advertised.
    expect(created.headers.get('ratelimit-policy')).toBe('"budget";q=300;w=60, "day";q=100000;w=86400');
    expect(created.headers.get('ratelimit')).toMatch(/^"budget";r=295;t=\d+, "day";r=99999;t=\d+$/);
    const read = await api.request('GET', '/pets/1');
    expect(read.headers.get('x-ratelimit-remaining')).toBe('294');
    // 58 more writes spend the budget to 4 (beyond writes-next's 30, which only watches): the 60th write is refused.
    for (let i = 0; i < 58; i++) expect((await api.request('POST', '/pets', { json: { name: `p${i}`, categoryId: 1 } })).status).toBe(201);
    const refused = await api.request('POST', '/pets', { json: { name: 'one too many', categoryId: 1 } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('4');
    // A read still fits what is left.
    expect((await api.request('GET', '/pets/1')).status).toBe(200);
  });

  it('mobile: a screen’s burst of 30 at once, then two a second; three checkouts at once, then one a minute', async () => {
    const api = client(mobile, 'mobile-key-01');
    const start = clock.now();
    expect((await api.request('POST', '/pets', { json: { name: 'Rex', categoryId: 1 } })).status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const order = await api.request('POST', '/store/orders', { json: { petId: 1 } });
      // The first takes the pet, the others find it taken: admitted all the same.
      expect(order.status).toBe(i === 0 ? 201 : 409);
      expect(order.headers.get('ratelimit-policy')).toBe('"burst";q=30;w=15, "hour";q=600;w=3600, "day";q=5000;w=86400, "checkout";q=3;w=180');
    }
    const checkout = await api.request('POST', '/store/orders', { json: { petId: 1 } });
    expect([checkout.status, checkout.headers.get('x-ratelimit-limit'), checkout.headers.get('retry-after')]).toEqual([429, '3', '60']);
    // 26 of the bucket's 30 are left for the screen.
    for (let i = 0; i < 26; i++) expect((await api.request('GET', '/pets/1')).status).toBe(200);
    const burst = await api.request('GET', '/pets/1');
    expect([burst.status, burst.headers.get('x-ratelimit-limit'), burst.headers.get('retry-after')]).toEqual([429, '30', '1']);
    expect(burst.headers.get('ratelimit-policy')).toBe('"burst";q=30;w=15, "hour";q=600;w=3600, "day";q=5000;w=86400');
    // A unit every 500 ms.
    clock.set(start + 500);
    expect((await api.request('GET', '/pets/1')).status).toBe(200);
    expect((await api.request('GET', '/pets/1')).status).toBe(429);
    clock.set(start + 15_500);
    for (let i = 0; i < 30; i++) expect((await api.request('GET', '/pets/1')).status).toBe(200);
  });
});
