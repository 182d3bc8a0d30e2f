import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { PET_STORE_OPERATIONS } from '../../src/adapters/http/operations/index.js';
import { PetStoreClient, PetStoreError } from '../../src/client.js';
import { newIdempotencyKey } from '../../src/client/idempotency-key.js';
import { nextLink } from '../../src/client/link-header.js';
import { readRateLimitState } from '../../src/client/rate-limit-state.js';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay, retryPolicy } from '../../src/client/retry-policy.js';
import { ROUTES } from '../../src/client/routes.js';
import { sleep } from '../../src/client/sleep.js';
import { errorJson, startScriptedServer } from './scripted-server.js';

describe('the client routes', () => {
  it('cover every operation that takes an API key, with its declared method and path, and nothing else', () => {
    const declared = PET_STORE_OPERATIONS.filter((operation) => operation.auth === 'apiKey').map(({ operationId, method, path }) => [operationId, { method, path }]);
    expect(ROUTES).toEqual(Object.fromEntries(declared));
  });
});

describe('nextLink', () => {
  const base = 'http://127.0.0.1:8080/v1/pets?limit=2';

  it('resolves the rel="next" target against the page it came from', () => {
    expect(nextLink('</v1/pets?limit=2&cursor=abc>; rel="next"', base)?.href).toBe('http://127.0.0.1:8080/v1/pets?limit=2&cursor=abc');
  });

  it('finds next among other links and relation lists, quoted or not, in any case', () => {
    expect(nextLink('</v1/pets>; rel="prev", </v1/pets?cursor=n>; title="x"; rel="last NEXT"', base)?.search).toBe('?cursor=n');
    expect(nextLink('</v1/pets?cursor=m>;rel=next', base)?.search).toBe('?cursor=m');
  });

  it('is undefined without a next link', () => {
    expect(nextLink(null, base)).toBeUndefined();
    expect(nextLink('</v1/pets>; rel="successor-version"', base)).toBeUndefined();
    expect(nextLink('</v1/pets>; rel="nextish"', base)).toBeUndefined();
  });
});

describe('readRateLimitState', () => {
  const read = (fields: Record<string, string>) => readRateLimitState(new Headers(fields), 1_000);

  it('pairs each RateLimit member with its RateLimit-Policy', () => {
    expect(read({ 'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400', ratelimit: '"minute";r=59;t=61, "day";r=999;t=87198' })).toEqual({
      receivedAt: 1_000,
      rules: [
        { name: 'minute', remaining: 59, resetSeconds: 61, limit: 60, windowSeconds: 60 },
        { name: 'day', remaining: 999, resetSeconds: 87_198, limit: 1000, windowSeconds: 86_400 },
      ],
    });
  });

  it('reads RateLimit without a policy, tokens and quoted names with commas, and skips members without r', () => {
    expect(read({ ratelimit: 'burst;r=3;t=1, "a, b";t=4;r=0;pk=:AAA=:, "bare";t=9' })?.rules).toEqual([
      { name: 'burst', remaining: 3, resetSeconds: 1, limit: undefined, windowSeconds: undefined },
      { name: 'a, b', remaining: 0, resetSeconds: 4, limit: undefined, windowSeconds: undefined },
    ]);
  });

  it("names a rule's limit `limit`, as rateLimitStatus() does; `quota` stays a deprecated alias of the same value, not a second field", () => {
    const [rule] = read({ 'ratelimit-policy': '"minute";q=60;w=60', ratelimit: '"minute";r=59;t=61' })?.rules ?? [];
    expect([rule?.limit, rule?.quota]).toEqual([60, 60]);
    expect(Object.keys(rule ?? {})).not.toContain('quota');
    expect(JSON.parse(JSON.stringify(rule))).toEqual({ name: 'minute', remaining: 59, resetSeconds: 61, limit: 60, windowSeconds: 60 });
  });

  it('is undefined when no RateLimit field is readable', () => {
    expect(read({})).toBeUndefined();
    expect(read({ ratelimit: 'garbage' })).toBeUndefined();
  });

  it('is updated by a refusal too, and kept through an answer without the fields', async () => {
    const server = await startScriptedServer((_, index) =>
      index === 0
        ? { ...errorJson(429, 'rate_limited'), headers: { 'retry-after': '1', ratelimit: '"minute";r=0;t=1', 'ratelimit-policy': '"minute";q=1;w=60' } }
        : { status: 200, json: [] },
    );
    try {
      const waits: number[] = [];
      const client = new PetStoreClient({ baseUrl: server.baseUrl, apiKey: 'k', retry: { sleep: async (ms) => void waits.push(ms) } });
      await client.listPets();
      expect(waits).toEqual([1000]);
      expect(client.rateLimit?.rules).toEqual([{ name: 'minute', remaining: 0, resetSeconds: 1, limit: 1, windowSeconds: 60 }]);
    } finally {
      await server.close();
    }
  });
});

describe('retry timing', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-23T06:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 06:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 05:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('backs off with full jitter: each wait in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))), Retry-After taking precedence', () => {
    const failure = new PetStoreError(503, 'service_unavailable', 'down');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, draw) => {
        const policy = retryPolicy({ random: () => draw });
        const ceiling = Math.min(DEFAULT_RETRY.maxDelayMs, DEFAULT_RETRY.baseDelayMs * 2 ** (retry - 1));
        const delay = retryDelay(policy, failure, retry);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(ceiling);
        expect(delay).toBe(Math.floor(draw * ceiling));
        expect(retryDelay(policy, new PetStoreError(503, 'service_unavailable', 'down', { retryAfterMs: 7_000 }), retry)).toBe(7_000);
      }),
    );
  });

  it('sleeps at least the time asked, and rejects with the reason when aborted', async () => {
    const start = performance.now();
    await sleep(30);
    expect(performance.now() - start).toBeGreaterThanOrEqual(30);

    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expect(sleep(10, AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});

describe('bad options', () => {
  const baseUrl = 'http://127.0.0.1:8080/v1';

  it.each([
    [{ baseUrl: '127.0.0.1:8080/v1', apiKey: 'k' }, /baseUrl must be an absolute http\(s\) URL/],
    [{ baseUrl: 'ftp://example.com/v1', apiKey: 'k' }, /baseUrl/],
    [{ baseUrl: `${baseUrl}?x=1`, apiKey: 'k' }, /baseUrl/],
    [{ baseUrl, apiKey: '' }, /apiKey must be a non-empty string of visible ASCII/],
    [{ baseUrl, apiKey: 'key with space' }, /apiKey/],
    [{ baseUrl, apiKey: 'k', retry: { maxAttempts: 0 } }, /retry\.maxAttempts must be an integer of at least 1: got 0/],
    [{ baseUrl, apiKey: 'k', retry: { maxAttempts: 2.5 } }, /retry\.maxAttempts/],
    [{ baseUrl, apiKey: 'k', retry: { maxWaitMs: -1 } }, /retry\.maxWaitMs must be a number of at least 0/],
    [{ baseUrl, apiKey: 'k', retry: { baseDelayMs: 0 } }, /retry\.baseDelayMs/],
    [{ baseUrl, apiKey: 'k', retry: { baseDelayMs: 1000, maxDelayMs: 500 } }, /retry\.maxDelayMs must be a finite number of at least baseDelayMs/],
  ])('%j is refused, saying why', (options, message) => {
    expect(() => new PetStoreClient(options)).toThrow(message);
  });
});

describe('newIdempotencyKey', () => {
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('is crypto.randomUUID() where there is one', () => {
    const keys = new Set(Array.from({ length: 100 }, () => newIdempotencyKey()));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(key).toMatch(UUID_V4);
  });

  it('is a version 4 UUID from getRandomValues where randomUUID is missing (an insecure browser context)', () => {
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => real.getRandomValues(bytes) });
    try {
      const keys = new Set(Array.from({ length: 100 }, () => newIdempotencyKey()));
      expect(keys.size).toBe(100);
      for (const key of keys) expect(key).toMatch(UUID_V4);
      vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => bytes.fill(0xff) });
      expect(newIdempotencyKey()).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('pages', () => {
  it('follows a next link on its own origin, and refuses one to another origin: the API key goes nowhere else', async () => {
    const pet = (id: number) => ({ id, name: `P${id}`, categoryId: 1, status: 'available' });
    const server = await startScriptedServer((request) =>
      request.url.includes('cursor=b')
        ? { status: 200, json: [pet(3)], headers: { link: '<http://elsewhere.example/v1/pets?cursor=c>; rel="next"' } }
        : { status: 200, json: [pet(1), pet(2)], headers: { link: '</v1/pets?limit=2&cursor=b>; rel="next"' } },
    );
    try {
      const seen: number[] = [];
      const reading = (async () => {
        for await (const item of new PetStoreClient({ baseUrl: server.baseUrl, apiKey: 'k' }).pets({ limit: 2 })) seen.push(item.id);
      })();
      await expect(reading).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringContaining('http://elsewhere.example') });
      // The page with the foreign link is refused whole.
      expect(seen).toEqual([1, 2]);
      expect(server.requests.map((request) => request.url)).toEqual(['/v1/pets?limit=2', '/v1/pets?limit=2&cursor=b']);
    } finally {
      await server.close();
    }
  });

  it('reports a listing whose body is not an array as invalid_response', async () => {
    const server = await startScriptedServer(() => ({ status: 200, json: { pets: [] } }));
    try {
      await expect(new PetStoreClient({ baseUrl: server.baseUrl, apiKey: 'k' }).listOrders()).rejects.toMatchObject({ status: 200, code: 'invalid_response' });
    } finally {
      await server.close();
    }
  });
});
