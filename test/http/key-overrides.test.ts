import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminKeySchema } from '../../src/adapters/http/admin/admin-key-schemas.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { HttpClient, type HttpResult } from '../support/http-client.js';

/*
 * A key with overrides of its plan's rules, end to end on the memory store: given them through
 * the admin API, it is decided, advertised and refused by its own limits while a key of the same
 * plan keeps the plan's, and a change of its overrides is a plan change of that key.
 */

const NOW = 1_900_000_000_000;
const CACHE_MS = 5_000;
const TOKEN = 'key-overrides-token-'.repeat(3);
const PLANS = {
  plans: {
    github: {
      rules: [
        { name: 'minute', limit: 100, window: '1m' },
        { name: 'search', limit: 10, window: '1m', match: ['listPets'], cost: 2 },
        { name: 'writes', limit: 50, window: '1m', match: ['createPet'], mode: 'shadow' },
      ],
    },
  },
};

const ajv = new Ajv2020.default({ strict: true, allErrors: true });
ajv.addFormat('date-time', { type: 'string', validate: (value: string) => !Number.isNaN(Date.parse(value)) });
const isAdminKey = ajv.compile(AdminKeySchema);

let server: RunningPetStore;
const clock = new ManualClock(NOW);

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'key-overrides-')), 'plans.json');
  writeFileSync(file, JSON.stringify(PLANS));
  server = await startPetStore(
    { PETSTORE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_ADMIN_TOKEN: TOKEN, PETSTORE_PLANS: file, PETSTORE_LOG_LEVEL: 'silent' },
    { clock },
  );
});
afterAll(() => server?.close(0, 0));

const admin = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
  const response = await fetch(`${server.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

/** A key of the github plan made through the admin API, with its client (answers checked against the OpenAPI document). */
const createKey = async (overrides?: unknown): Promise<{ id: string; client: HttpClient; key: Record<string, unknown> }> => {
  const { status, json } = await admin('POST', '/keys', { plan: 'github', ...(overrides === undefined ? {} : { overrides }) });
  expect(status, JSON.stringify(json)).toBe(201);
  const key = json['key'] as Record<string, unknown>;
  return { id: key['id'] as string, client: new HttpClient(server.baseUrl, json['secret'] as string), key };
};

const fields = (result: HttpResult) => ({
  status: result.status,
  policy: result.headers.get('ratelimit-policy'),
  limit: result.headers.get('x-ratelimit-limit'),
  remaining: result.headers.get('x-ratelimit-remaining'),
  retryAfter: result.headers.get('retry-after'),
});

describe('a key overriding rules of its plan', () => {
  it('is decided, advertised and refused by its own limits; a key of the same plan keeps the plan\'s', async () => {
    const own = await createKey({ search: { limit: 4 }, minute: { limit: 300 } });
    const plain = await createKey();

    expect(fields(await own.client.get('/pets'))).toEqual({ status: 200, policy: '"minute";q=300;w=60, "search";q=4;w=60', limit: '4', remaining: '2', retryAfter: null });
    expect(fields(await plain.client.get('/pets'))).toEqual({ status: 200, policy: '"minute";q=100;w=60, "search";q=10;w=60', limit: '10', remaining: '8', retryAfter: null });
    expect(fields(await own.client.get('/pets'))).toMatchObject({ status: 200, remaining: '0' });
    expect(fields(await own.client.get('/pets'))).toEqual({
      status: 429,
      policy: '"minute";q=300;w=60, "search";q=4;w=60',
      limit: '4',
      remaining: '0',
      retryAfter: expect.stringMatching(/^6[01]$/),
    });
    // Only the search rule is spent: another operation is admitted under the key's own minute rule.
    expect(fields(await own.client.get('/store/inventory'))).toMatchObject({ status: 200, policy: '"minute";q=300;w=60', limit: '300', remaining: '297' });

    const status = await own.client.get('/rate_limit');
    expect(status.status).toBe(200);
    const { rules } = status.body as { rules: { name: string; limit: number; remaining: number }[] };
    expect(rules.map(({ name, limit, remaining }) => ({ name, limit, remaining }))).toEqual([
      { name: 'minute', limit: 300, remaining: 297 },
      { name: 'search', limit: 4, remaining: 0 },
      { name: 'writes', limit: 50, remaining: 50 },
    ]);
  });

  it('shows the rules its requests are decided by in the admin view, each one it overrides with the plan\'s own terms', async () => {
    const { id, key } = await createKey({ search: { limit: 4 }, writes: { limit: 20, mode: 'enforce' } });
    const rules = [
      { name: 'minute', limit: 100, windowMs: 60_000, mode: 'enforce' },
      { name: 'search', limit: 4, windowMs: 60_000, mode: 'enforce', match: ['listPets'], cost: 2, overridden: { limit: 10, mode: 'enforce' } },
      { name: 'writes', limit: 20, windowMs: 60_000, mode: 'enforce', match: ['createPet'], overridden: { limit: 50, mode: 'shadow' } },
    ];
    expect(key['rules']).toEqual(rules);
    expect(isAdminKey(key), JSON.stringify(isAdminKey.errors)).toBe(true);
    const shown = await admin('GET', `/keys/${id}`);
    expect((shown.json['key'] as Record<string, unknown>)['rules']).toEqual(rules);
    expect((shown.json['rules'] as { limit: number }[]).map((rule) => rule.limit)).toEqual([100, 4, 20]);
  });

  it('changes by PATCH reach the API within the key cache, what was counted staying counted; null gives a rule back the plan\'s', async () => {
    const { id, client } = await createKey();
    for (let i = 0; i < 3; i++) expect((await client.get('/pets')).status).toBe(200);
    // 6 of the plan's 10 spent: under a limit of 6 of its own, nothing is left.
    expect((await admin('PATCH', `/keys/${id}`, { overrides: { search: { limit: 6 } } })).status).toBe(200);
    clock.advance(CACHE_MS);
    expect(fields(await client.get('/pets'))).toMatchObject({ status: 429, limit: '6', remaining: '0' });
    expect((await admin('PATCH', `/keys/${id}`, { overrides: { search: { limit: 20 } } })).status).toBe(200);
    clock.advance(CACHE_MS);
    expect(fields(await client.get('/pets'))).toMatchObject({ status: 200, limit: '20', remaining: '12' });
    // 8 spent: the plan's 10 leave room for one more.
    expect((await admin('PATCH', `/keys/${id}`, { overrides: { search: null } })).status).toBe(200);
    clock.advance(CACHE_MS);
    expect(fields(await client.get('/pets'))).toMatchObject({ status: 200, limit: '10', remaining: '0' });
    expect(fields(await client.get('/pets'))).toMatchObject({ status: 429, limit: '10', remaining: '0' });
  });

  it('refuses overrides that do not fit with 400 invalid_request naming the field, and changes nothing', async () => {
    const { id } = await createKey({ search: { limit: 4 } });
    const refusals: [string, string, unknown, string][] = [
      ['POST', '/keys', { plan: 'github', overrides: { serch: { limit: 4 } } }, 'overrides.serch.limit: plan github has no rule serch (its rules: minute, search, writes)'],
      ['POST', '/keys', { plan: 'github', overrides: { search: null } }, 'overrides.search: null removes an override, and a new key has none'],
      ['POST', '/keys', { plan: 'github', overrides: [] }, 'overrides must be an object of rule names: {"search": {"limit": 60}}'],
      ['PATCH', `/keys/${id}`, { overrides: { search: { limit: 1 } } }, "overrides.search.limit must be a whole number from 2 to 4294967295, the rule's largest cost being 2"],
      ['PATCH', `/keys/${id}`, { overrides: { search: { limit: 0 } } }, 'overrides.search.limit must be a whole number from 1 to 4294967295'],
      ['PATCH', `/keys/${id}`, { overrides: { search: { limit: '5' } } }, 'overrides.search.limit must be a whole number from 1 to 4294967295'],
      ['PATCH', `/keys/${id}`, { overrides: { search: { limit: 5, mode: 'strict' } } }, 'overrides.search.mode must be enforce or shadow'],
      ['PATCH', `/keys/${id}`, { overrides: { search: { limit: 5, window: '1h' } } }, 'overrides.search: unknown field "window"; an override has limit and mode'],
      ['PATCH', `/keys/${id}`, { overrides: { search: 5 } }, 'overrides.search must be {"limit": N}, {"limit": N, "mode": "shadow"}, or null to remove it'],
      ['PATCH', `/keys/${id}`, { overrides: { minute: { limit: 5, mode: 'shadow' } } }, 'the overrides would leave plan github no enforced rule over every request: keep minute enforced'],
      [
        'PATCH',
        `/keys/${id}`,
        { plan: 'pro' },
        'the key overrides search, which plan pro has no rule of (its rules: minute, day): give "overrides": {"search": null} with the change of plan',
      ],
    ];
    const before = await admin('GET', `/keys/${id}`);
    for (const [method, path, body, message] of refusals) {
      expect(await admin(method, path, body), JSON.stringify(body)).toEqual({ status: 400, json: { code: 'invalid_request', message, status: 400 } });
    }
    expect(await admin('GET', `/keys/${id}`)).toEqual(before);
    expect((await admin('PATCH', `/keys/${id}`, { plan: 'pro', overrides: { search: null } })).json['key']).toMatchObject({ plan: 'pro', perMinute: 60 * 5, perDay: 10_000 });
  });
});
