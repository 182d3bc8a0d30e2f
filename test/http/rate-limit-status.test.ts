import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_STATUS_RULE } from '../../src/adapters/http/contract/rate-limit-status-rule.js';
import { expectError, HttpClient, type HttpResult } from '../support/http-client.js';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

/** Limits small enough to spend in a test; each test its own key so none sees another's requests. */
const KEYS = {
  counted: 'status-counted-1',
  unchanged: 'status-unchanged-1',
  own: 'status-own-1',
  banned: 'status-banned-1',
  ruled: 'status-ruled-1',
  spent: 'status-spent-1',
} as const;
const PER_MINUTE = 40;
const PER_DAY = 500;

let store: TestPetStore;
const as = (key: string): HttpClient => new HttpClient(store.baseUrl, key);

beforeAll(async () => {
  store = await startTestPetStore({ extraApiKeys: Object.values(KEYS).map((key) => `${key}:enterprise:${PER_MINUTE}:${PER_DAY}`) });
});
afterAll(async () => {
  await store.close();
});

interface StatusBody {
  readonly plan: string;
  readonly rules: readonly {
    readonly name: string;
    readonly limit: number;
    readonly windowSeconds: number;
    readonly remaining: number;
    readonly reset: number;
  }[];
  readonly bannedUntil: number | null;
}

const status = async (client: HttpClient): Promise<StatusBody> => {
  const answer = await client.get('/rate_limit');
  expect(answer.status, answer.text).toBe(200);
  return answer.body as StatusBody;
};

/** What the `RateLimit` field of an answer says: each rule's remaining. */
const remainingOf = (answer: HttpResult): Record<string, number> =>
  Object.fromEntries([...(answer.headers.get('ratelimit') ?? '').matchAll(/"([^"]+)";r=(\d+)/g)].map(([, name, r]) => [name!, Number(r)]));

const nowSeconds = (): number => Date.now() / 1000;

describe('GET /v1/rate_limit', () => {
  it('after k requests reports each rule at limit - k, with its limit, window and reset', async () => {
    const client = as(KEYS.counted);
    const k = 7;
    let last: HttpResult | undefined;
    for (let i = 0; i < k; i++) last = await client.get('/pets?limit=1');
    const before = nowSeconds();
    const answer = await client.get('/rate_limit');
    expect(answer.status).toBe(200);
    const body = answer.body as StatusBody;
    expect(body.plan).toBe('enterprise');
    expect(body.bannedUntil).toBeNull();
    expect(body.rules.map(({ name, limit, windowSeconds, remaining }) => ({ name, limit, windowSeconds, remaining }))).toEqual([
      { name: 'minute', limit: PER_MINUTE, windowSeconds: 60, remaining: PER_MINUTE - k },
      { name: 'day', limit: PER_DAY, windowSeconds: 86_400, remaining: PER_DAY - k },
    ]);
    // Each reset is when the first of the k requests stops being counted: within its window from now, and as the last counted answer said.
    const [minute, day] = body.rules;
    expect(minute!.reset).toBeGreaterThan(before);
    expect(minute!.reset).toBeLessThanOrEqual(Math.ceil(before) + 60 + 1);
    expect(day!.reset).toBeGreaterThan(before + 86_400 - 60);
    expect(day!.reset).toBeLessThanOrEqual(Math.ceil(before) + 86_400 + 1_440 + 1);
    expect(Math.abs(minute!.reset - Number(last!.headers.get('x-ratelimit-reset')))).toBeLessThanOrEqual(1);
    // Its rate-limit fields advertise its own rule, which counted this read, beside the plan's as they stand; that rule binds, with the fewest left.
    const own = RATE_LIMIT_STATUS_RULE;
    expect(remainingOf(answer)).toEqual({ [own.name]: own.limit - 1, minute: PER_MINUTE - k, day: PER_DAY - k });
    expect(answer.headers.get('ratelimit-policy')).toBe(`"${own.name}";q=${own.limit};w=60, "minute";q=${PER_MINUTE};w=60, "day";q=${PER_DAY};w=86400`);
    expect(answer.headers.get('x-ratelimit-limit')).toBe(String(own.limit));
    expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(own.limit - 1));
    expect(Number(answer.headers.get('x-ratelimit-reset')) - before).toBeGreaterThan(59);
    expect(Number(answer.headers.get('x-ratelimit-reset')) - before).toBeLessThanOrEqual(62);
    expect(answer.headers.get('retry-after')).toBeNull();
  });

  it('is not counted against the quota: calling it changes no remaining', async () => {
    const client = as(KEYS.unchanged);
    await client.get('/pets?limit=1');
    const first = await status(client);
    expect(await status(client)).toEqual(first);
    expect((await client.request('HEAD', '/rate_limit')).status).toBe(200);
    const next = await client.get('/pets?limit=1');
    expect(remainingOf(next)).toEqual({ minute: PER_MINUTE - 2, day: PER_DAY - 2 });
  });

  it('past its own rule (RATE_LIMIT_STATUS_RULE, per key) answers 429 rate_limited with Retry-After, and still spends no quota', async () => {
    const client = as(KEYS.own);
    for (let i = 0; i < RATE_LIMIT_STATUS_RULE.limit; i++) await status(client);
    const refused = await client.get('/rate_limit');
    expectError(refused, 429, 'rate_limited');
    const refusedAt = nowSeconds();
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(61);
    // Its fields say why: its own rule has nothing left until the Retry-After, though the plan's quota is whole.
    const own = RATE_LIMIT_STATUS_RULE;
    expect(remainingOf(refused)).toEqual({ [own.name]: 0, minute: PER_MINUTE, day: PER_DAY });
    expect([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')]).toEqual([String(own.limit), '0']);
    expect(Math.abs(Number(refused.headers.get('x-ratelimit-reset')) - (refusedAt + retryAfter))).toBeLessThanOrEqual(2);
    expect(refused.headers.get('ratelimit')).toMatch(new RegExp(`^"${own.name}";r=0;t=${retryAfter},`));
    // The plan is untouched: the next API request is the first counted, and another key's own rule is its own.
    expect(remainingOf(await client.get('/pets?limit=1'))).toEqual({ minute: PER_MINUTE - 1, day: PER_DAY - 1 });
    expect((await as(KEYS.ruled).get('/rate_limit')).status).toBe(200);
  });

  it("past its own rule with the plan's minute spent too, its 429's X-RateLimit-* still describe its own rule, which Retry-After waits out", async () => {
    const client = as(KEYS.spent);
    for (let i = 0; i < PER_MINUTE; i++) expect((await client.get('/pets?limit=1')).status).toBe(200);
    for (let i = 0; i < RATE_LIMIT_STATUS_RULE.limit; i++) await status(client);
    const refused = await client.get('/rate_limit');
    expectError(refused, 429, 'rate_limited');
    const refusedAt = nowSeconds();
    // Both rules of one window have nothing left: on the tie, the route's own rule, listed first, is the one described.
    expect(remainingOf(refused)).toEqual({ [RATE_LIMIT_STATUS_RULE.name]: 0, minute: 0, day: PER_DAY - PER_MINUTE });
    expect([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')]).toEqual([String(RATE_LIMIT_STATUS_RULE.limit), '0']);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Math.abs(Number(refused.headers.get('x-ratelimit-reset')) - (refusedAt + retryAfter))).toBeLessThanOrEqual(2);
  });

  it("a banned key reads the ban's end, where its 429s' Retry-After points", async () => {
    const client = as(KEYS.banned);
    let answer: HttpResult | undefined;
    // A client ignoring 429: the quota, one refusal, then strikes until the ban (20 by default).
    for (let i = 0; i < PER_MINUTE + 25 && (answer === undefined || (answer.body as { code?: string }).code !== 'api_key_banned'); i++) {
      answer = await client.get('/pets?limit=1');
    }
    expectError(answer!, 429, 'api_key_banned');
    const bannedAt = nowSeconds();
    const retryAfter = Number(answer!.headers.get('retry-after'));
    const read = await client.get('/rate_limit');
    expect(read.status).toBe(200);
    // The plan's fields as they stand: nothing left, so the plan binds X-RateLimit-*; the route itself refused nothing, so no Retry-After.
    expect(read.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(read.headers.get('retry-after')).toBeNull();
    const body = read.body as StatusBody;
    expect(body.bannedUntil).not.toBeNull();
    expect(Math.abs(body.bannedUntil! - (bannedAt + retryAfter))).toBeLessThanOrEqual(2);
    expect(body.bannedUntil!).toBeGreaterThan(nowSeconds() + 14 * 60);
    expect(body.rules.map((rule) => rule.remaining)).toEqual([0, 0]);
    // Reading earned no strike and moved nothing: still the same ban.
    expectError(await client.get('/pets?limit=1'), 429, 'api_key_banned');
    expect((await status(client)).bannedUntil).toBe(body.bannedUntil);
  });

  it('without a valid key: 401, counted per client address like any request without one', async () => {
    const anonymous = await store.anonymous.get('/rate_limit');
    expectError(anonymous, 401, 'unauthorized');
    const unknown = await store.anonymous.get('/rate_limit', { key: 'no-such-key' });
    expectError(unknown, 401, 'unauthorized');
    expect(Number(unknown.headers.get('x-ratelimit-remaining'))).toBe(Number(anonymous.headers.get('x-ratelimit-remaining')) - 1);
  });

  it('refuses what it does not understand, as any operation does', async () => {
    const client = as(KEYS.ruled);
    expectError(await client.get('/rate_limit?verbose=1'), 400, 'invalid_request', 'verbose');
    const post = await client.post('/rate_limit', { json: {} });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
