import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { expectError, HttpClient, type HttpResult } from '../support/http-client.js';
import { ManualClock } from '../support/manual-clock.js';

// Aligned to a second and to a day granule (24 min), so Retry-After values are exact.
const T0 = 1_800_000_000_000;
const DAY_GRANULE = 1_440_000;
const STRIKE_WINDOW = 600_000;

/** Gaps between a client's sends when nothing holds it back: bursts, and waits that fall between whole seconds. */
const GAPS = [0, 0, 1_234, 0, 2_517, 0, 0, 9_871, 433, 0, 15_002, 1];

const retryAfterMs = (result: HttpResult): number => 1000 * Number(result.headers.get('retry-after'));

describe('Retry-After and the default ban (20 strikes within 10 minutes ban for 15 minutes) over HTTP', () => {
  const clock = new ManualClock(T0);
  let store: RunningPetStore;
  let api: HttpClient;

  beforeAll(async () => {
    store = await startPetStore(
      {
        PETSTORE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: '0',
        PETSTORE_API_KEYS: 'k-obeys-1:enterprise:5:100000,k-small-1:enterprise:5:8',
      },
      { clock },
    );
    api = new HttpClient(store.baseUrl);
  });
  afterAll(() => store.close());

  it('a key that waits out every Retry-After it is given is never banned, and none of its many refusals was a strike', async () => {
    const get = (): Promise<HttpResult> => api.get('/pets?limit=1', { key: 'k-obeys-1' });
    clock.set(T0 + 337);
    const refusedAt: number[] = [];
    for (let i = 0; i < 240; i++) {
      const result = await get();
      if (result.status !== 200) {
        expectError(result, 429, 'rate_limited');
        refusedAt.push(clock.now());
        clock.advance(retryAfterMs(result));
        expect((await get()).status, `back at the Retry-After of the 429 at ${clock.now()}`).toBe(200);
      }
      clock.advance(GAPS[i % GAPS.length]!);
    }
    expect(refusedAt.filter((at) => at > clock.now() - STRIKE_WINDOW).length).toBeGreaterThanOrEqual(20);

    // Had any of those refusals been a strike, fewer than 20 strikes now would ban the key.
    let refused = await get();
    while (refused.status === 200) refused = await get();
    expectError(refused, 429, 'rate_limited');
    for (let strike = 1; strike < 20; strike++) expectError(await get(), 429, 'rate_limited');
    expectError(await get(), 429, 'api_key_banned');
  });

  it("a key banned while its day quota is spent is told to come back when the day rule admits again, past the ban's end, and is admitted then", async () => {
    const get = (): Promise<HttpResult> => api.get('/pets?limit=1', { key: 'k-small-1' });
    const start = T0 + 100 * DAY_GRANULE;
    clock.set(start);
    for (let i = 0; i < 5; i++) expect((await get()).status).toBe(200);
    clock.set(start + 61_000);
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    // All 8 sit in the day granule of `start`, which leaves the day window 61 granules later.
    const dayRetry = start + 61 * DAY_GRANULE;
    const refused = await get();
    expectError(refused, 429, 'rate_limited');
    expect(clock.now() + retryAfterMs(refused)).toBe(dayRetry);
    for (let strike = 1; strike < 20; strike++) expectError(await get(), 429, 'rate_limited');

    const bannedAt = clock.now();
    const banned = await get();
    expectError(banned, 429, 'api_key_banned');
    expect(bannedAt + retryAfterMs(banned)).toBe(dayRetry);
    expect(retryAfterMs(banned)).toBeGreaterThan(900_000);
    // The day rule comes back when the Retry-After says, not when the ban ends.
    expect(banned.headers.get('ratelimit')).toBe(`"minute";r=0;t=900, "day";r=0;t=${(dayRetry - bannedAt) / 1000}`);

    clock.set(bannedAt + 600_000);
    const stillBanned = await get();
    expectError(stillBanned, 429, 'api_key_banned');
    expect(clock.now() + retryAfterMs(stillBanned)).toBe(dayRetry);

    // Back at the ban's end, the day quota is still spent.
    clock.set(bannedAt + 900_000);
    const early = await get();
    expectError(early, 429, 'rate_limited');
    expect(clock.now() + retryAfterMs(early)).toBe(dayRetry);

    clock.set(dayRetry);
    const back = await get();
    expect(back.status).toBe(200);
    expect(back.headers.get('ratelimit')).toMatch(/^"minute";r=4;t=\d+, "day";r=7;t=\d+$/);
  });
});
