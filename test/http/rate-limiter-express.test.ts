import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import { ManualClock } from '../support/manual-clock.js';

// Aligned on a second and an hour, so the reset times below are exact.
const T0 = 1_800_000_000_000;
const S0 = T0 / 1000;
// An application would pass a SystemClock (or a RedisQuotaStore); the test moves time itself.
const clock = new ManualClock(T0);

// --- what docs/embedding.md shows, from here ---
const limiter = createRateLimiter({
  rules: [
    { name: 'minute', limit: 3, windowMs: 60_000 },
    { name: 'hour', limit: 100, windowMs: 3_600_000 },
  ],
  store: new MemoryQuotaStore(clock),
});

const limited: RequestHandler = async (req, res, next) => {
  const { allowed, headers } = await limiter.check(`search:${req.ip}`);
  res.set(headers);
  if (allowed) return next();
  res.status(429).json({ error: 'rate_limited', retryAfter: Number(headers['Retry-After']) });
};

const app = express();
app.get('/search', limited, (req, res) => {
  res.json({ q: req.query['q'], results: [] });
});
// --- to here ---

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly rateLimit: Record<string, string | null>;
}

const RATE_LIMIT_FIELDS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit', 'retry-after'];

const search = async (): Promise<Answer> => {
  const response = await fetch(`${baseUrl}/search?q=collar`);
  const rateLimit = Object.fromEntries(RATE_LIMIT_FIELDS.map((name) => [name, response.headers.get(name)]));
  return { status: response.status, body: await response.json(), rateLimit };
};

describe('an express 5 route guarded by the rate limiter', () => {
  it('answers 200 with the rate-limit fields while the client has quota, then 429 with Retry-After, and 200 again once it has passed', async () => {
    const policy = '"minute";q=3;w=60, "hour";q=100;w=3600';
    const admitted = [await search(), await search(), await search()];
    expect(admitted.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(admitted[0]?.body).toEqual({ q: 'collar', results: [] });
    expect(admitted.map((answer) => answer.rateLimit)).toEqual(
      [2, 1, 0].map((left) => ({
        'x-ratelimit-limit': '3',
        'x-ratelimit-remaining': String(left),
        'x-ratelimit-reset': String(S0 + 61),
        'ratelimit-policy': policy,
        ratelimit: `"minute";r=${left};t=61, "hour";r=${99 - (2 - left)};t=3660`,
        'retry-after': null,
      })),
    );

    clock.advance(1_000);
    const refused = await search();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'rate_limited', retryAfter: 60 });
    expect(refused.rateLimit).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(S0 + 61),
      'ratelimit-policy': policy,
      ratelimit: '"minute";r=0;t=60, "hour";r=97;t=3659',
      'retry-after': '60',
    });

    clock.advance(60_000);
    // The refusal spent nothing: the minute rule is back to 2 left after this request.
    const back = await search();
    expect(back.status).toBe(200);
    expect(back.rateLimit).toMatchObject({ 'x-ratelimit-remaining': '2', ratelimit: '"minute";r=2;t=61, "hour";r=96;t=3599', 'retry-after': null });
  });
});

describe('the example as docs/embedding.md shows it', () => {
  it('is the code above, line for line, and turns no bans on: bans are explained where they are shown, not switched on in passing', () => {
    const guide = readFileSync(join(import.meta.dirname, '../../docs/embedding.md'), 'utf8');
    const shown = /\*\*The quota engine as a limiter of your own\*\*[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1];
    const self = readFileSync(import.meta.filename, 'utf8');
    const tested = /\/\/ --- what docs\/embedding\.md shows, from here ---\n([\s\S]*?)\/\/ --- to here ---/.exec(self)?.[1];
    const normalized = (code: string | undefined) => code?.replace('new MemoryQuotaStore(clock)', 'new MemoryQuotaStore(new SystemClock())').replace(/\nconst app = express\(\);\n/, '\n').trim();
    expect(normalized(shown)).toBe(normalized(tested));
    expect(shown).not.toMatch(/\bban\b|BAN_POLICY/);
  });
});
