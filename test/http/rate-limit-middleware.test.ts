import express from 'express';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitHook, rateLimitMiddleware } from '../../src/adapters/http/limiter/rate-limit-middleware.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { listening, type Host } from '../support/handler-hosts.js';
import { failingStore } from '../support/quota-store-doubles.js';

const limiterOf = (limit: number, store: QuotaStore = new MemoryQuotaStore(new SystemClock())) =>
  createRateLimiter({ rules: [{ name: 'minute', limit, windowMs: 60_000 }], store });

const get = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers });
  return {
    status: response.status,
    body: (await response.json()) as unknown,
    remaining: response.headers.get('x-ratelimit-remaining'),
    policy: response.headers.get('ratelimit-policy'),
    retryAfter: response.headers.get('retry-after'),
  };
};

describe('rateLimitMiddleware in express 5: the exact quota engine on chosen routes', () => {
  let host: Host;
  const weighed = limiterOf(20);
  const refunding = limiterOf(6);
  beforeAll(async () => {
    const app = express();
    const perTenant = rateLimitMiddleware({
      limiter: limiterOf(2),
      key: (req) => `tenant:${String(req.headers['x-tenant'])}`,
      skip: (req) => req.headers['x-internal'] === 'yes',
      refusal: (check) => ({ status: 429, body: { slowDown: true, verdict: check.decision.verdict } }),
    });
    app.get('/search', perTenant, (_req, res) => {
      res.json({ results: [] });
    });
    app.get('/open', (_req, res) => {
      res.json({ open: true });
    });
    const exact = rateLimitMiddleware({ limiter: limiterOf(100) });
    app.get('/exact', exact, (_req, res) => {
      res.json({ ok: true });
    });
    app.get('/export', rateLimitMiddleware({ limiter: weighed, key: () => 'exporter', cost: (req) => (req.url?.endsWith('rows=all') === true ? 10 : 1) }), (_req, res) => {
      res.json({ exported: true });
    });
    app.get('/flaky', rateLimitMiddleware({ limiter: refunding, key: () => 'flaky', cost: () => 2, refund: ['5xx'] }), (req, res) => {
      res.status(req.headers['x-fail'] === 'yes' ? 503 : 200).json({ failed: req.headers['x-fail'] === 'yes' });
    });
    app.get('/bad-cost', rateLimitMiddleware({ limiter: weighed, key: () => 'bad', cost: () => 0.5 }), (_req, res) => {
      res.json({ ok: true });
    });
    app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ hostSaw: error instanceof RangeError ? error.message : String(error) });
    });
    const tiered = createRateLimiter({
      rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }],
      store: new MemoryQuotaStore(new SystemClock()),
      overrides: [
        { subjects: 'tenant:acme', limits: { minute: 3 } },
        { subjects: 'tenant:partner-*', limits: { minute: 2 } },
      ],
    });
    app.get('/tiered', rateLimitMiddleware({ limiter: tiered, key: (req) => `tenant:${String(req.headers['x-tenant'])}` }), (_req, res) => {
      res.json({ ok: true });
    });
    const down = rateLimitMiddleware({ limiter: limiterOf(5, failingStore(new StoreUnavailableError('Redis'))) });
    app.get('/down', down, (_req, res) => {
      res.json({ ok: true });
    });
    host = await listening(app.listen(0, '127.0.0.1'));
  });
  afterAll(async () => {
    await host.close();
  });

  it('counts per key, writes the rate-limit fields, and answers the refusal it is given', async () => {
    const a = [await get(`${host.origin}/search`, { 'x-tenant': 'a' }), await get(`${host.origin}/search`, { 'x-tenant': 'a' })];
    expect(a.map((answer) => [answer.status, answer.remaining, answer.policy])).toEqual([
      [200, '1', '"minute";q=2;w=60'],
      [200, '0', '"minute";q=2;w=60'],
    ]);
    const refused = await get(`${host.origin}/search`, { 'x-tenant': 'a' });
    expect([refused.status, refused.body, refused.retryAfter !== null]).toEqual([429, { slowDown: true, verdict: 'rate_limited' }, true]);
    expect((await get(`${host.origin}/search`, { 'x-tenant': 'b' })).status).toBe(200);
  });

  it('leaves skipped requests and other routes alone: not counted, no fields', async () => {
    const skipped = await get(`${host.origin}/search`, { 'x-tenant': 'c', 'x-internal': 'yes' });
    expect([skipped.status, skipped.policy]).toEqual([200, null]);
    const open = await get(`${host.origin}/open`);
    expect([open.status, open.policy]).toEqual([200, null]);
    expect((await get(`${host.origin}/search`, { 'x-tenant': 'c' })).remaining).toBe('1');
  });

  it('admits exactly 100 of 150 concurrent requests on a limit of 100, and refuses the rest in the Error format', async () => {
    const answers = await Promise.all(Array.from({ length: 150 }, () => get(`${host.origin}/exact`)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(100);
    const refusals = answers.filter((answer) => answer.status === 429);
    expect(refusals).toHaveLength(50);
    expect(refusals[0]?.body).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  it('spends what a request costs, tells what is left without spending it (get), and forgets a key on reset', async () => {
    expect((await get(`${host.origin}/export?rows=all`)).remaining).toBe('10');
    expect((await get(`${host.origin}/export`)).remaining).toBe('9');
    expect(weighed.get('exporter', 10)).toMatchObject({ allowed: false, decision: { remaining: [9] } });
    expect(weighed.get('exporter')).toMatchObject({ allowed: true, decision: { remaining: [9] } });
    const refused = await get(`${host.origin}/export?rows=all`);
    expect([refused.status, refused.remaining, refused.retryAfter !== null]).toEqual([429, '9', true]);
    expect((await get(`${host.origin}/export`)).remaining).toBe('8');
    weighed.reset('exporter');
    expect(weighed.get('exporter', 20)).toMatchObject({ allowed: true, decision: { remaining: [20] } });
    expect((await get(`${host.origin}/export?rows=all`)).remaining).toBe('10');
  });

  it('hands a cost it cannot weigh to the host as a RangeError naming the range, counting nothing', async () => {
    const answer = await get(`${host.origin}/bad-cost`);
    expect([answer.status, answer.body]).toEqual([500, { hostSaw: 'rate limiter: cost must be a whole number from 1 to 20 (the smallest limit), not 0.5' }]);
    expect(weighed.get('bad')).toMatchObject({ decision: { remaining: [20] } });
  });

  it("decides each key by its override's limits, an exact subject before a pattern, the others by the limiter's rules", async () => {
    const admitted = async (tenant: string): Promise<{ admitted: number; policy: string | null }> => {
      let count = 0;
      let policy: string | null = null;
      for (let i = 0; i < 5; i++) {
        const answer = await get(`${host.origin}/tiered`, { 'x-tenant': tenant });
        if (answer.status === 200) count++;
        policy = answer.policy;
      }
      return { admitted: count, policy };
    };
    expect(await admitted('acme')).toEqual({ admitted: 3, policy: '"minute";q=3;w=60' });
    expect(await admitted('partner-zed')).toEqual({ admitted: 2, policy: '"minute";q=2;w=60' });
    expect(await admitted('zed')).toEqual({ admitted: 1, policy: '"minute";q=1;w=60' });
  });

  it("gives a request's cost back once its answer is a refunded class (503 under 5xx), never a 2xx's, and refuses what is no answer class at creation", async () => {
    const remaining = async (): Promise<number> => (await refunding.get('flaky')).decision.remaining[0]!;
    expect((await get(`${host.origin}/flaky`, { 'x-fail': 'yes' })).status).toBe(503);
    // Given back on 'finish', once the answer is written: the client may read before it lands.
    await expect.poll(remaining).toBe(6);
    expect((await get(`${host.origin}/flaky`)).status).toBe(200);
    expect(await remaining()).toBe(4);
    expect((await get(`${host.origin}/flaky`, { 'x-fail': 'yes' })).remaining).toBe('2');
    await expect.poll(remaining).toBe(4);
    expect(() => rateLimitMiddleware({ limiter: refunding, refund: ['6xx'] })).toThrow(/refund "6xx" is not an answer class/);
    expect(() => rateLimitHook({ limiter: refunding, refund: ['5XX'] })).toThrow(RangeError);
  });

  it('tells a banned subject it is banned without calling it an API key: the limiter does not know what its subjects are', async () => {
    const banning = createRateLimiter({
      rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }],
      store: new MemoryQuotaStore(new SystemClock()),
      ban: { strikes: 1, strikeWindowMs: 60_000, banMs: 60_000 },
    });
    const app = express();
    app.get('/banning', rateLimitMiddleware({ limiter: banning, key: () => 'tenant:x' }), (_req, res) => {
      res.json({ ok: true });
    });
    const banHost = await listening(app.listen(0, '127.0.0.1'));
    try {
      let last = await get(`${banHost.origin}/banning`);
      for (let i = 0; i < 4 && (last.body as { code?: string }).code !== 'api_key_banned'; i++) last = await get(`${banHost.origin}/banning`);
      expect(last.body).toEqual({ code: 'api_key_banned', status: 429, message: 'This client is temporarily banned for sending requests while rate limited.' });
    } finally {
      await banHost.close();
    }
  });

  it('answers 503 with Retry-After when its store cannot decide', async () => {
    const answer = await get(`${host.origin}/down`);
    expect([answer.status, answer.retryAfter, (answer.body as { code: string }).code]).toEqual([503, '1', 'service_unavailable']);
  });
});

describe('rateLimitHook in fastify 5, on one route', () => {
  const app = Fastify();
  const lookups = limiterOf(2);
  let origin: string;
  beforeAll(async () => {
    app.get('/limited', { onRequest: rateLimitHook({ limiter: limiterOf(1) }) }, async () => ({ ok: true }));
    const partners = createRateLimiter({
      rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }],
      store: new MemoryQuotaStore(new SystemClock()),
      overrides: [{ subjects: 'partner:*', limits: { minute: 2 } }],
    });
    app.get('/partners', { onRequest: rateLimitHook({ limiter: partners, key: (req) => String(req.headers['x-subject']) }) }, async () => ({ ok: true }));
    app.get('/free', async () => ({ ok: true }));
    app.get('/lookup/:id', { onRequest: rateLimitHook({ limiter: lookups, key: () => 'looker', refund: ['404'] }) }, async (request, reply) =>
      (request.params as { id: string }).id === 'known' ? { found: true } : reply.code(404).send({ found: false }),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
  });

  it('admits, then refuses with the service 429 and Retry-After; the other route is untouched', async () => {
    const first = await get(`${origin}/limited`);
    const second = await get(`${origin}/limited`);
    expect([first.status, first.remaining, second.status, second.retryAfter !== null]).toEqual([200, '0', 429, true]);
    expect(second.body).toMatchObject({ code: 'rate_limited', status: 429 });
    const free = await get(`${origin}/free`);
    expect([free.status, free.policy]).toEqual([200, null]);
  });

  it('gives back the cost of a lookup answered 404 under refund ["404"], through the reply\'s raw response, and keeps a found one\'s', async () => {
    for (let i = 0; i < 5; i++) expect((await get(`${origin}/lookup/missing`)).status).toBe(404);
    await expect.poll(async () => (await lookups.get('looker')).decision.remaining[0]).toBe(2);
    expect((await get(`${origin}/lookup/known`)).status).toBe(200);
    expect((await lookups.get('looker')).decision.remaining[0]).toBe(1);
  });

  it("decides a subject a pattern override names by that override's limits", async () => {
    const statuses = async (subject: string): Promise<number[]> => {
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) seen.push((await get(`${origin}/partners`, { 'x-subject': subject })).status);
      return seen;
    };
    expect(await statuses('partner:acme')).toEqual([200, 200, 429]);
    expect(await statuses('ip:1')).toEqual([200, 429, 429]);
  });
});
