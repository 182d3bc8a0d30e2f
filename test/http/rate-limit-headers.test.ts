import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import type { HttpResult } from '../support/http-client.js';
import { KEYS, startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

// Time stands still at a whole second, so each rule's reset is exact up to one granule.
const NOW_SECONDS = 1_900_000_000;
const clock: Clock = { now: () => NOW_SECONDS * 1000 };
/** Sub-window counters are at most 1/60 of a window: a minute rule resets within 1 s more, a day rule 1440 s. */
const MINUTE_SLACK = 1;
const DAY_SLACK = 1440;

let store: TestPetStore;

beforeAll(async () => {
  store = await startTestPetStore({ clock });
});

afterAll(() => store.close());

interface Fields {
  readonly limit: number;
  readonly remaining: number;
  readonly reset: number;
  readonly policy: string | null;
  /** Per rule name: remaining `r` and seconds `t`. */
  readonly rules: Record<string, { r: number; t: number }>;
}

function fieldsOf(result: HttpResult): Fields {
  const rules: Record<string, { r: number; t: number }> = {};
  for (const item of (result.headers.get('ratelimit') ?? '').split(', ')) {
    const match = /^"(\w+)";r=(\d+);t=(\d+)$/.exec(item);
    expect(match, `RateLimit item ${item}`).not.toBeNull();
    if (match?.[1] !== undefined) rules[match[1]] = { r: Number(match[2]), t: Number(match[3]) };
  }
  return {
    limit: Number(result.headers.get('x-ratelimit-limit')),
    remaining: Number(result.headers.get('x-ratelimit-remaining')),
    reset: Number(result.headers.get('x-ratelimit-reset')),
    policy: result.headers.get('ratelimit-policy'),
    rules,
  };
}

function expectMinuteReset(fields: Fields): void {
  expect(fields.reset).toBeGreaterThanOrEqual(NOW_SECONDS + 60);
  expect(fields.reset).toBeLessThanOrEqual(NOW_SECONDS + 60 + MINUTE_SLACK);
  expect(fields.rules['minute']?.t).toBe(fields.reset - NOW_SECONDS);
}

function expectDayT(fields: Fields): void {
  expect(fields.rules['day']?.t).toBeGreaterThanOrEqual(86_400);
  expect(fields.rules['day']?.t).toBeLessThanOrEqual(86_400 + DAY_SLACK);
}

describe('rate-limit headers on every response', () => {
  it('describe both rules of a Free key, the minute rule binding', async () => {
    const first = fieldsOf(await store.client.get('/pets', { key: KEYS.free }));
    expect(first.policy).toBe('"minute";q=60;w=60, "day";q=1000;w=86400');
    expect(first).toMatchObject({ limit: 60, remaining: 59 });
    expect(Object.keys(first.rules)).toEqual(['minute', 'day']);
    expect(first.rules['minute']?.r).toBe(59);
    expect(first.rules['day']?.r).toBe(999);
    expectMinuteReset(first);
    expectDayT(first);

    const second = fieldsOf(await store.client.post('/pets', { key: KEYS.free, json: { name: 'Rex', categoryId: 1 } }));
    expect(second).toMatchObject({ limit: 60, remaining: 58 });
    expect(second.rules['minute']?.r).toBe(58);
    expect(second.rules['day']?.r).toBe(998);
    expectMinuteReset(second);
  });

  it.each([
    [KEYS.pro, 300, 10_000],
    [KEYS.business, 1_000, 100_000],
    [KEYS.enterprise, 1_000, 50_000],
  ])('describe the two rules of the plan of %s', async (key, perMinute, perDay) => {
    const fields = fieldsOf(await store.client.get('/pets', { key }));
    expect(fields.policy).toBe(`"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`);
    expect(fields.limit).toBe(perMinute);
    // Each key's first request in this file.
    expect(fields.remaining).toBe(perMinute - 1);
    expect(fields.rules).toEqual({ minute: { r: perMinute - 1, t: fields.reset - NOW_SECONDS }, day: { r: perDay - 1, t: expect.any(Number) } });
    expectDayT(fields);
    expectMinuteReset(fields);
  });

  it('count every answer of a key, errors, 404s and 405s included, each against that key alone', async () => {
    const key = KEYS.pro;
    const other = fieldsOf(await store.client.get('/pets', { key: KEYS.business })).remaining;
    const start = fieldsOf(await store.client.get('/pets', { key })).remaining;
    const answers = [
      await store.client.get('/pets?limit=0', { key }),
      await store.client.get('/pets/999', { key }),
      await store.client.get(new URL('/v1/nope', store.baseUrl).href, { key }),
      await store.client.request('DELETE', '/pets', { key }),
      await store.client.post('/pets', { key, raw: 'nope' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([400, 404, 404, 405, 400]);
    expect(answers.map((answer) => fieldsOf(answer).remaining)).toEqual([1, 2, 3, 4, 5].map((spent) => start - spent));
    expect(fieldsOf(await store.client.get('/pets', { key: KEYS.business })).remaining, 'another key is untouched').toBe(other - 1);
  });

  it('describe the single per-address rule to callers without a valid key', async () => {
    const answers = [
      await store.anonymous.get('/pets'),
      await store.anonymous.get('/pets', { key: 'unknown-key' }),
      await store.anonymous.get('/pets', { authorization: 'Basic eDp5' }),
      await store.anonymous.get(new URL('/v1/nope', store.baseUrl).href),
      await store.anonymous.request('DELETE', '/pets/1'),
      await store.anonymous.get('/openapi.json'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 404, 405, 200]);
    const fields = answers.map(fieldsOf);
    const first = fields[0]?.remaining ?? 0;
    expect(first).toBeLessThanOrEqual(59);
    fields.forEach((field, i) => {
      expect(field.policy).toBe('"minute";q=60;w=60');
      expect(field.limit).toBe(60);
      expect(field.remaining, `answer ${i}`).toBe(first - i);
      expect(Object.keys(field.rules)).toEqual(['minute']);
      expect(field.rules['minute']?.r).toBe(field.remaining);
      expectMinuteReset(field);
    });
  });
});
