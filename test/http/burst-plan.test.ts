import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { PetStoreClient } from '../../src/client.js';
import type { RateLimitStatus } from '../../src/client/types.js';
import { HttpClient, type HttpResult } from '../support/http-client.js';
import { ManualClock } from '../support/manual-clock.js';

const START = 1_900_000_000_000;
const clock = new ManualClock(START);

const KEY = 'burst-plan-key';
/** A bucket of 5 refilling 2 a second (completely in 2.5 s) beside an hour of 100. */
const PLANS = {
  plans: {
    mobile: {
      rules: [
        { name: 'hour', limit: 100, window: '1h' },
        { name: 'burst', burst: 5, rate: 2, per: '1s' },
      ],
    },
  },
};

let server: RunningPetStore;
/** Checks every answer against the OpenAPI document. */
let client: HttpClient;

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'burst-plan-')), 'plans.json');
  writeFileSync(file, JSON.stringify(PLANS));
  server = await startPetStore({ PETSTORE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', PETSTORE_PLANS: file, PETSTORE_API_KEYS: `${KEY}:mobile` }, { clock });
  client = new HttpClient(server.baseUrl, KEY);
});
afterAll(() => server?.close(0, 0));

const fieldsOf = (result: HttpResult) => ({
  status: result.status,
  policy: result.headers.get('ratelimit-policy'),
  rateLimit: result.headers.get('ratelimit'),
  limit: result.headers.get('x-ratelimit-limit'),
  remaining: result.headers.get('x-ratelimit-remaining'),
  reset: Number(result.headers.get('x-ratelimit-reset')) - START / 1000,
  retryAfter: result.headers.get('retry-after'),
});

describe('a plan with a burst rule over HTTP', () => {
  it('admits the bucket at once, advertises it with w its refill time in whole seconds, and refuses until a unit refills, Retry-After rounded up', async () => {
    const answers: ReturnType<typeof fieldsOf>[] = [];
    for (let i = 0; i < 6; i++) answers.push(fieldsOf(await client.get('/pets/1')));
    expect(answers.map(({ status }) => status)).toEqual([404, 404, 404, 404, 404, 429]);
    // A unit refills every 500 ms: the bucket binds, with fewer remaining than the hour.
    expect(answers[0]).toEqual({
      status: 404,
      policy: '"hour";q=100;w=3600, "burst";q=5;w=3',
      rateLimit: '"hour";r=99;t=3620, "burst";r=4;t=1',
      limit: '5',
      remaining: '4',
      reset: 1,
      retryAfter: null,
    });
    expect(answers[5]).toMatchObject({ status: 429, remaining: '0', retryAfter: '1', rateLimit: '"hour";r=95;t=3620, "burst";r=0;t=1' });

    clock.advance(499);
    expect((await client.get('/pets/1')).status).toBe(429);
    clock.advance(1);
    expect(fieldsOf(await client.get('/pets/1'))).toMatchObject({ status: 404, remaining: '0' });
  });

  it('GET /rate_limit lists the burst rule with its kind, and the client reads it', async () => {
    // Full again 2.5 s after the last unit was taken.
    clock.advance(2_500);
    const status = await client.get('/rate_limit');
    expect(status.body).toEqual({
      plan: 'mobile',
      rules: [
        { name: 'hour', limit: 100, windowSeconds: 3600, remaining: 94, reset: START / 1000 + 3620, mode: 'enforce' },
        { name: 'burst', limit: 5, windowSeconds: 3, remaining: 5, reset: Math.ceil((START + 3_000) / 1000), kind: 'burst', mode: 'enforce' },
      ],
      bannedUntil: null,
    });
    const read: RateLimitStatus = await new PetStoreClient({ baseUrl: server.baseUrl, apiKey: KEY, retry: { maxAttempts: 1 } }).rateLimitStatus();
    expect(read.rules.map(({ name, kind }) => ({ name, kind }))).toEqual([
      { name: 'hour', kind: undefined },
      { name: 'burst', kind: 'burst' },
    ]);
  });
});
