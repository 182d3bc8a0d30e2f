import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestHandler } from '../../src/adapters/http/request-handler.js';
import { enterprisePlan } from '../../src/domain/quota/plan.js';
import { handlerDependencies, listening, type Host } from '../support/handler-hosts.js';

/* Mounted in express, the handler answers its own base path and hands every other path to the host's next handler. */

const KEY = 'guest-key-1';

describe('the handler as an express middleware, beside the host app own routes', () => {
  let host: Host;
  beforeAll(async () => {
    const app = express();
    app.use('/petstore', createRequestHandler(await handlerDependencies({ [KEY]: { plan: enterprisePlan(1_000, 10_000), role: 'customer' } }), { basePath: '/petstore/v1' }));
    // Registered after the mount: reached only when the handler passes the request on.
    app.get('/petstore/status', (_req, res) => {
      res.type('text/plain').send('host status');
    });
    app.use((_req, res) => {
      res.status(404).type('text/plain').send('host 404');
    });
    host = await listening(app.listen(0, '127.0.0.1'));
  });
  afterAll(async () => {
    await host.close();
  });

  const get = async (path: string, key: string | null = KEY) => {
    const response = await fetch(`${host.origin}${path}`, key === null ? {} : { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, text: await response.text(), limited: response.headers.get('ratelimit-policy') !== null };
  };

  it("passes a path outside its base path to the host's next handler, spending no quota and writing nothing", async () => {
    expect(await get('/petstore/status')).toEqual({ status: 200, text: 'host status', limited: false });
    expect(await get('/petstore/v2/pets')).toEqual({ status: 404, text: 'host 404', limited: false });
    expect(await get('/petstore/v1x')).toEqual({ status: 404, text: 'host 404', limited: false });
  });

  it('answers every path under its base path itself, an unknown one with its own 404', async () => {
    const pets = await get('/petstore/v1/pets');
    expect([pets.status, pets.limited]).toEqual([200, true]);
    const unknown = await get('/petstore/v1/unknown');
    expect([unknown.status, JSON.parse(unknown.text).code, unknown.limited]).toEqual([404, 'not_found', true]);
  });
});

describe("the client address from the host app: express's req.ip under its trust proxy", () => {
  const anonymousRemaining = async (origin: string, forwardedFor: string): Promise<string | null> => {
    const response = await fetch(`${origin}/petstore/v1/openapi.json`, { headers: { 'x-forwarded-for': forwardedFor } });
    await response.arrayBuffer();
    return response.headers.get('x-ratelimit-remaining');
  };

  it("limits anonymous callers by req.ip when told to, so each forwarded client has a quota of its own", async () => {
    const app = express();
    app.set('trust proxy', 1);
    app.use('/petstore', createRequestHandler(await handlerDependencies({}), { basePath: '/petstore/v1', trustProxy: { kind: 'host' } }));
    const host = await listening(app.listen(0, '127.0.0.1'));
    try {
      expect(await anonymousRemaining(host.origin, '203.0.113.1')).toBe('999');
      expect(await anonymousRemaining(host.origin, '203.0.113.1')).toBe('998');
      expect(await anonymousRemaining(host.origin, '203.0.113.2')).toBe('999');
    } finally {
      await host.close();
    }
  });

  it('by default ignores the host and X-Forwarded-For alike: every client behind the proxy shares the socket address', async () => {
    const app = express();
    app.set('trust proxy', 1);
    app.use('/petstore', createRequestHandler(await handlerDependencies({}), { basePath: '/petstore/v1' }));
    const host = await listening(app.listen(0, '127.0.0.1'));
    try {
      expect(await anonymousRemaining(host.origin, '203.0.113.1')).toBe('999');
      expect(await anonymousRemaining(host.origin, '203.0.113.2')).toBe('998');
    } finally {
      await host.close();
    }
  });
});
