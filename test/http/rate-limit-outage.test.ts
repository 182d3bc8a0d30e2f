import express from 'express';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitHook, rateLimitMiddleware } from '../../src/adapters/http/limiter/rate-limit-middleware.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { QuotaOutageFallback } from '../../src/adapters/wrappers/quota-outage-fallback.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { listening, type Host } from '../support/handler-hosts.js';
import { failingStore } from '../support/quota-store-doubles.js';

/*
 * With its store down (every call rejects with StoreUnavailableError), the middleware and the hook
 * refuse with 503 by default, admit uncounted under `onStoreUnavailable: 'allow'`, and decide per
 * instance when the limiter's store is wrapped in QuotaOutageFallback 'local' (docs/embedding.md).
 */

const clock = new SystemClock();
const down = (): QuotaStore => failingStore(new StoreUnavailableError('Redis'));
const limiterOver = (store: QuotaStore, limit = 2) => createRateLimiter({ rules: [{ name: 'minute', limit, windowMs: 60_000 }], store });

const answer = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, remaining: response.headers.get('x-ratelimit-remaining'), retryAfter: response.headers.get('retry-after') };
};

describe('rateLimitMiddleware in express 5, its store down', () => {
  let host: Host;
  beforeAll(async () => {
    const app = express();
    const ok = (_req: express.Request, res: express.Response) => {
      res.json({ ok: true });
    };
    app.get('/deny', rateLimitMiddleware({ limiter: limiterOver(down()) }), ok);
    app.get('/allow', rateLimitMiddleware({ limiter: limiterOver(down()), onStoreUnavailable: 'allow' }), ok);
    const local = new QuotaOutageFallback(down(), 'local', new MemoryQuotaStore(clock), clock);
    app.get('/local', rateLimitMiddleware({ limiter: limiterOver(local), key: () => 'one' }), ok);
    host = await listening(app.listen(0, '127.0.0.1'));
  });
  afterAll(async () => {
    await host.close();
  });

  it("refuses 503 with Retry-After by default ('deny', as before)", async () => {
    expect(await answer(`${host.origin}/deny`)).toEqual({ status: 503, remaining: null, retryAfter: '1' });
  });

  it("admits every request uncounted and unmarked under onStoreUnavailable: 'allow' (fail open)", async () => {
    for (let i = 0; i < 4; i++) expect(await answer(`${host.origin}/allow`)).toEqual({ status: 200, remaining: null, retryAfter: null });
  });

  it("decides on the instance's own memory over a store wrapped in QuotaOutageFallback 'local'", async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await answer(`${host.origin}/local`)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("refuses at creation a policy it does not know (a 'local' belongs to the store)", () => {
    const onStoreUnavailable = 'local' as unknown as 'allow';
    expect(() => rateLimitMiddleware({ limiter: limiterOver(down()), onStoreUnavailable })).toThrow(/QuotaOutageFallback/);
  });
});

describe('rateLimitHook in fastify 5, its store down', () => {
  const app = Fastify();
  let origin: string;
  beforeAll(async () => {
    app.get('/deny', { onRequest: rateLimitHook({ limiter: limiterOver(down()) }) }, async () => ({ ok: true }));
    app.get('/allow', { onRequest: rateLimitHook({ limiter: limiterOver(down()), onStoreUnavailable: 'allow' }) }, async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
  });

  it("refuses 503 by default and admits uncounted under 'allow'", async () => {
    expect(await answer(`${origin}/deny`)).toEqual({ status: 503, remaining: null, retryAfter: '1' });
    for (let i = 0; i < 4; i++) expect(await answer(`${origin}/allow`)).toEqual({ status: 200, remaining: null, retryAfter: null });
  });
});
