import express from 'express';
import Fastify, { type FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { rateLimitHook, rateLimitMiddleware, type RateLimitMiddlewareOptions } from '../../src/adapters/http/limiter/rate-limit-middleware.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import { listening, type Host } from '../support/handler-hosts.js';

/*
 * The middleware's `key`, `cost`, `skip` and `refusal` see the host's own request: express's
 * `req.user` and `req.ip`, fastify's `request.user` and `request.ip`, typed without a cast (this
 * file is type-checked by `npm run typecheck`) and the same objects at run time.
 */

const limiterOf = (limit: number) => createRateLimiter({ rules: [{ name: 'minute', limit, windowMs: 60_000 }], store: new MemoryQuotaStore(new SystemClock()) });

/** What an authentication middleware before the limiter leaves on express's request. */
type AuthedRequest = express.Request & { user?: { id: string; plan: 'free' | 'pro' } };
/** The same on fastify's, set by an earlier onRequest hook on a decorated request. */
type AuthedFastifyRequest = FastifyRequest & { user?: { id: string } | null };

const statusOf = async (url: string, headers: Record<string, string> = {}): Promise<number> => (await fetch(url, { headers })).status;

describe('rateLimitMiddleware over express 5: the host request type', () => {
  let host: Host;
  const seen: string[] = [];
  beforeAll(async () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    app.use((req: AuthedRequest, _res, next) => {
      const id = req.headers['x-user'];
      if (typeof id === 'string') req.user = { id, plan: id.startsWith('pro-') ? 'pro' : 'free' };
      next();
    });
    const perUser = rateLimitMiddleware<AuthedRequest>({
      limiter: limiterOf(2),
      key: (req) => `user:${req.user?.id ?? req.ip ?? 'unknown'}`,
      cost: (req) => (req.user?.plan === 'pro' ? 1 : 2),
      skip: (req) => req.path === '/users/health',
      refusal: (check, req) => ({ status: 429, body: { user: req.user?.id, verdict: check.decision.verdict } }),
    });
    app.get(['/users/search', '/users/health'], perUser, (req: AuthedRequest, res) => {
      seen.push(req.user?.id ?? '-');
      res.json({ ok: true });
    });
    // The default key: express's req.ip, which follows the app's `trust proxy`.
    app.get('/by-ip', rateLimitMiddleware({ limiter: limiterOf(1) }), (_req, res) => {
      res.json({ ok: true });
    });
    host = await listening(app.listen(0, '127.0.0.1'));
  });
  afterAll(async () => {
    await host.close();
  });

  it('types key, cost, skip and refusal over the request type given, IncomingMessage by default', () => {
    expectTypeOf<Parameters<NonNullable<RateLimitMiddlewareOptions<AuthedRequest>['key']>>[0]>().toEqualTypeOf<AuthedRequest>();
    expectTypeOf<Parameters<NonNullable<RateLimitMiddlewareOptions['cost']>>[0]>().toEqualTypeOf<IncomingMessage>();
    type Handed = Parameters<ReturnType<typeof rateLimitMiddleware<AuthedRequest>>>[0];
    expectTypeOf<Handed>().toMatchTypeOf<AuthedRequest>();
    expectTypeOf<AuthedRequest>().toMatchTypeOf<Handed>();
  });

  it("counts per req.user with the cost of the user's plan, and answers the refusal with the user it saw", async () => {
    expect([await statusOf(`${host.origin}/users/search`, { 'x-user': 'pro-ann' }), await statusOf(`${host.origin}/users/search`, { 'x-user': 'pro-ann' })]).toEqual([200, 200]);
    const refused = await fetch(`${host.origin}/users/search`, { headers: { 'x-user': 'pro-ann' } });
    expect([refused.status, await refused.json()]).toEqual([429, { user: 'pro-ann', verdict: 'rate_limited' }]);
    // A free user's request costs both units at once.
    expect([await statusOf(`${host.origin}/users/search`, { 'x-user': 'bob' }), await statusOf(`${host.origin}/users/search`, { 'x-user': 'bob' })]).toEqual([200, 429]);
    expect(await statusOf(`${host.origin}/users/health`, { 'x-user': 'bob' })).toBe(200);
  });

  it("keys by default on req.ip: the forwarded client behind a trusted proxy (express's `trust proxy`)", async () => {
    expect(await statusOf(`${host.origin}/by-ip`, { 'x-forwarded-for': '203.0.113.7' })).toBe(200);
    expect(await statusOf(`${host.origin}/by-ip`, { 'x-forwarded-for': '203.0.113.8' })).toBe(200);
    expect(await statusOf(`${host.origin}/by-ip`, { 'x-forwarded-for': '203.0.113.7' })).toBe(429);
  });
});

describe("rateLimitHook over fastify 5: fastify's request", () => {
  const app = Fastify({ trustProxy: '127.0.0.1' });
  let origin: string;
  beforeAll(async () => {
    app.decorateRequest('user', null);
    app.addHook('onRequest', async (request: AuthedFastifyRequest) => {
      const id = request.headers['x-user'];
      if (typeof id === 'string') request.user = { id };
    });
    const perUser = rateLimitHook<AuthedFastifyRequest>({
      limiter: limiterOf(1),
      key: (request) => `user:${request.user?.id ?? request.ip}`,
      skip: (request) => request.routeOptions.url === '/health',
    });
    app.get('/search', { onRequest: perUser }, async () => ({ ok: true }));
    app.get('/health', { onRequest: perUser }, async () => ({ ok: true }));
    app.get('/by-ip', { onRequest: rateLimitHook({ limiter: limiterOf(1) }) }, async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
  });

  it("hands key and skip fastify's request itself, typed as given", () => {
    type Handed = Parameters<ReturnType<typeof rateLimitHook<AuthedFastifyRequest>>>[0];
    expectTypeOf<Handed>().toMatchTypeOf<AuthedFastifyRequest>();
    expectTypeOf<AuthedFastifyRequest>().toMatchTypeOf<Handed>();
  });

  it('counts per request.user and skips by route', async () => {
    expect([await statusOf(`${origin}/search`, { 'x-user': 'ann' }), await statusOf(`${origin}/search`, { 'x-user': 'ann' })]).toEqual([200, 429]);
    expect(await statusOf(`${origin}/search`, { 'x-user': 'bob' })).toBe(200);
    expect([await statusOf(`${origin}/health`, { 'x-user': 'ann' }), await statusOf(`${origin}/health`, { 'x-user': 'ann' })]).toEqual([200, 200]);
  });

  it("keys by default on request.ip: the forwarded client behind fastify's trustProxy", async () => {
    expect(await statusOf(`${origin}/by-ip`, { 'x-forwarded-for': '203.0.113.7' })).toBe(200);
    expect(await statusOf(`${origin}/by-ip`, { 'x-forwarded-for': '203.0.113.8' })).toBe(200);
    expect(await statusOf(`${origin}/by-ip`, { 'x-forwarded-for': '203.0.113.7' })).toBe(429);
  });
});
