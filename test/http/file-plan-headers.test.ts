import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import type { Clock } from '../../src/ports/clock.js';
import { HttpClient, type HttpResult } from '../support/http-client.js';

// Time stands still at a whole second, so each reset is exact up to one granule (1 s of a minute rule).
const NOW_SECONDS = 1_900_000_000;
const clock: Clock = { now: () => NOW_SECONDS * 1000 };
const MINUTE_SLACK = 1;

const KEY = 'file-plan-key';
const MINUTE_LIMIT = 100;
const SEARCH_LIMIT = 4;
const SEARCH_COST = 2;
/** A GitHub-like plan: a minute rule for every request, and a stricter search rule listPets pays 2 under. */
const PLANS = {
  plans: {
    github: {
      rules: [
        { name: 'minute', limit: MINUTE_LIMIT, window: '1m' },
        { name: 'search', limit: SEARCH_LIMIT, window: '1m', match: ['listPets'], cost: SEARCH_COST },
      ],
    },
  },
};

let server: RunningPetStore;
/** Checks every answer against the OpenAPI document. */
let client: HttpClient;

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'file-plan-')), 'plans.json');
  writeFileSync(file, JSON.stringify(PLANS));
  server = await startPetStore({ PETSTORE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', PETSTORE_PLANS: file, PETSTORE_API_KEYS: `${KEY}:github` }, { clock });
  client = new HttpClient(server.baseUrl, KEY);
});
afterAll(() => server?.close(0, 0));

const fieldsOf = (result: HttpResult) => ({
  policy: result.headers.get('ratelimit-policy'),
  rateLimit: result.headers.get('ratelimit'),
  limit: Number(result.headers.get('x-ratelimit-limit')),
  remaining: Number(result.headers.get('x-ratelimit-remaining')),
  resetIn: Number(result.headers.get('x-ratelimit-reset')) - NOW_SECONDS,
  retryAfter: result.headers.get('retry-after'),
});

describe('the rate-limit fields of a file plan with a rule per operation', () => {
  it('advertise the rules each request matched, the binding one in X-RateLimit-*, and refuse by the search rule alone', async () => {
    const created = await client.post('/pets', { json: { name: 'Rex', categoryId: 1 } });
    expect(created.status).toBe(201);
    const petId = (created.body as { id: number }).id;
    // createPet matches only the minute rule.
    expect(fieldsOf(created)).toMatchObject({ policy: `"minute";q=${MINUTE_LIMIT};w=60`, limit: MINUTE_LIMIT, remaining: MINUTE_LIMIT - 1 });

    const listed = await client.get('/pets');
    expect(listed.status).toBe(200);
    const fields = fieldsOf(listed);
    expect(fields.policy).toBe(`"minute";q=${MINUTE_LIMIT};w=60, "search";q=${SEARCH_LIMIT};w=60`);
    expect(fields.rateLimit).toMatch(new RegExp(`^"minute";r=${MINUTE_LIMIT - 2};t=6[01], "search";r=${SEARCH_LIMIT - SEARCH_COST};t=6[01]$`));
    // The search rule binds: fewest remaining.
    expect(fields).toMatchObject({ limit: SEARCH_LIMIT, remaining: SEARCH_LIMIT - SEARCH_COST, retryAfter: null });

    const got = await client.get(`/pets/${petId}`);
    expect(got.status).toBe(200);
    expect(fieldsOf(got)).toMatchObject({ policy: `"minute";q=${MINUTE_LIMIT};w=60`, limit: MINUTE_LIMIT, remaining: MINUTE_LIMIT - 3 });
    expect(fieldsOf(got).rateLimit).toMatch(new RegExp(`^"minute";r=${MINUTE_LIMIT - 3};t=6[01]$`));

    // The second list spends the search rule's last units; the third has no room.
    expect((await client.get('/pets')).status).toBe(200);
    const refused = await client.get('/pets');
    expect(refused.status).toBe(429);
    const refusal = fieldsOf(refused);
    expect(refusal).toMatchObject({ limit: SEARCH_LIMIT, remaining: 0 });
    expect(refusal.resetIn).toBeGreaterThanOrEqual(60);
    expect(refusal.resetIn).toBeLessThanOrEqual(60 + MINUTE_SLACK);
    expect(refusal.retryAfter).toBe(String(refusal.resetIn));

    // getPet is no search: the minute rule still has room for it.
    const after = await client.get(`/pets/${petId}`);
    expect(after.status).toBe(200);
    expect(fieldsOf(after).policy).toBe(`"minute";q=${MINUTE_LIMIT};w=60`);
  });

  it('GET /rate_limit lists both rules with their use, mode, match and cost', async () => {
    // The five admitted requests above; the refused list counted nowhere.
    const status = await client.get('/rate_limit');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      plan: 'github',
      rules: [
        { name: 'minute', limit: MINUTE_LIMIT, windowSeconds: 60, remaining: MINUTE_LIMIT - 5, mode: 'enforce' },
        { name: 'search', limit: SEARCH_LIMIT, windowSeconds: 60, remaining: 0, mode: 'enforce', match: ['listPets'], cost: SEARCH_COST },
      ],
      bannedUntil: null,
    });
    const [minute] = (status.body as { rules: Record<string, unknown>[] }).rules;
    expect(minute).not.toHaveProperty('match');
    expect(minute).not.toHaveProperty('cost');
    // Its own fields as ever: its own rule first, then the plan's.
    expect(status.headers.get('ratelimit-policy')).toBe(`"rate_limit";q=10;w=60, "minute";q=${MINUTE_LIMIT};w=60, "search";q=${SEARCH_LIMIT};w=60`);
  });
});
