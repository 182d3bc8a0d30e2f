import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { expectError, HttpClient } from '../support/http-client.js';
import { ManualClock } from '../support/manual-clock.js';

// Aligned to a second and to a day granule (24 min), so Retry-After values are exact.
const T0 = 1_800_000_000_000;

async function startWithClock(apiKeys: string, clock: ManualClock, extra: Record<string, string> = {}): Promise<RunningPetStore> {
  return startPetStore({ PETSTORE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', PETSTORE_API_KEYS: apiKeys, ...extra }, { clock });
}

describe('rate limits over HTTP', () => {
  const clock = new ManualClock(T0);
  let store: RunningPetStore;
  let api: HttpClient;

  beforeAll(async () => {
    store = await startWithClock('free-key-1:free,free-key-2:free,tight-key-1:enterprise:10:5,ent-key-1:enterprise:100:100000', clock);
    api = new HttpClient(store.baseUrl);
  });
  afterAll(() => store.close());

  it('answers the 61st request of a minute on a Free key with 429 rate_limited and Retry-After, then admits it after that wait', async () => {
    clock.set(T0);
    for (let i = 0; i < 60; i++) {
      const ok = await api.get('/pets', { key: 'free-key-1' });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('60');
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    const refused = await api.get('/pets', { key: 'free-key-1' });
    expectError(refused, 429, 'rate_limited');
    // Everything was counted in the bucket of T0, which leaves the 60-granule window 61 s later.
    expect(refused.headers.get('retry-after')).toBe('61');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String((T0 + 61_000) / 1000));
    // The day rule's granule is 24 min: its oldest bucket leaves 61 granules after it began.
    expect(refused.headers.get('ratelimit')).toBe('"minute";r=0;t=61, "day";r=940;t=87840');

    clock.advance(61_000);
    const again = await api.get('/pets', { key: 'free-key-1' });
    expect(again.status).toBe(200);
    // The 429 consumed nothing: the whole minute is back, minus this request.
    expect(again.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('keeps every key apart: one key over its limit leaves another key of the same plan untouched', async () => {
    clock.set(T0 + 10 * 60_000);
    for (let i = 0; i < 61; i++) await api.get('/pets', { key: 'free-key-1' });
    const other = await api.get('/pets', { key: 'free-key-2' });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('reports the binding rule in X-RateLimit-* (fewest remaining) and both rules in the IETF fields', async () => {
    clock.set(T0 + 20 * 60_000);
    const first = await api.get('/pets', { key: 'tight-key-1' });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"minute";q=10;w=60, "day";q=5;w=86400');
    // The day rule (5) has fewer left than the minute rule (10): it binds.
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(first.headers.get('ratelimit')).toMatch(/^"minute";r=9;t=\d+, "day";r=4;t=\d+$/);
  });

  it('admits exactly 100 of 150 concurrent requests on a key of 100 per minute', async () => {
    clock.set(T0 + 30 * 60_000);
    const results = await Promise.all(Array.from({ length: 150 }, () => api.get('/pets?limit=1', { key: 'ent-key-1' })));
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(50);
    const remaining = results.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-remaining')));
    expect(new Set(remaining).size, 'each admitted request saw its own count').toBe(100);
  });

  it('limits requests without a valid key per client address, 401s, 404s and 405s included', async () => {
    clock.set(T0 + 40 * 60_000);
    for (let i = 0; i < 20; i++) expectError(await api.get('/pets', { key: null }), 401, 'unauthorized');
    for (let i = 0; i < 20; i++) expectError(await api.get('/nowhere', { key: 'not-a-real-key' }), 404, 'not_found');
    for (let i = 0; i < 20; i++) expectError(await api.request('DELETE', '/pets', { key: null }), 405, 'method_not_allowed');
    const limited = await api.get('/pets', { key: null });
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A valid key is limited by its own plan, not by its address.
    expect((await api.get('/pets', { key: 'free-key-2' })).status).toBe(200);
  });
});

describe('temporary bans over HTTP', () => {
  const clock = new ManualClock(T0);
  let store: RunningPetStore;
  let api: HttpClient;

  beforeAll(async () => {
    store = await startWithClock('noisy-key-1:enterprise:5:1000,quiet-key-1:enterprise:5:1000', clock, {
      PETSTORE_BAN_STRIKES: '3',
      PETSTORE_BAN_WINDOW_SECONDS: '60',
      PETSTORE_BAN_SECONDS: '120',
    });
    api = new HttpClient(store.baseUrl, 'noisy-key-1');
  });
  afterAll(() => store.close());

  it('bans a key at its 3rd strike within the period for the configured length, answers api_key_banned until then, then recovers', async () => {
    for (let i = 0; i < 5; i++) expect((await api.get('/pets')).status).toBe(200);
    // The first refusal is no strike; the next three are, and the third bans.
    for (let i = 0; i < 3; i++) expectError(await api.get('/pets'), 429, 'rate_limited');
    const banned = await api.get('/pets');
    expectError(banned, 429, 'api_key_banned');
    expect(banned.headers.get('retry-after')).toBe('120');

    clock.advance(100_000);
    const stillBanned = await api.get('/pets');
    expectError(stillBanned, 429, 'api_key_banned');
    expect(stillBanned.headers.get('retry-after')).toBe('20');
    expect((await api.get('/pets', { key: 'quiet-key-1' })).status, 'other keys are never affected').toBe(200);

    clock.advance(20_000);
    expect((await api.get('/pets')).status).toBe(200);
  });
});
