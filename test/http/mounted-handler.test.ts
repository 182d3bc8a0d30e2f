import express from 'express';
import Fastify from 'fastify';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument, SAME_ORIGIN } from '../../src/adapters/http/contract/openapi-document.js';
import { PET_STORE_OPERATIONS } from '../../src/adapters/http/operations/index.js';
import {
  createRequestHandler,
  type PetStoreRequestHandler,
  type RequestHandlerDependencies,
} from '../../src/adapters/http/request-handler.js';
import { DEFAULT_DEPRECATED_AT } from '../../src/adapters/http/contract/deprecation-date.js';
import { enterprisePlan } from '../../src/domain/quota/plan.js';
import { handlerDependencies, listening, type Host } from '../support/handler-hosts.js';

/*
 * createRequestHandler over real sockets, three ways: as a plain node:http listener, mounted
 * in an express 5 app and in a fastify 5 app under a prefix of the host's choosing. The same
 * cases run through each; every link the handler writes must lead back through the mount.
 */

const KEY = 'mounted-key-1';
/** 3 requests a minute: the 429 case without 60 requests. */
const SMALL_KEY = 'mounted-small-key';
const SMALL_LIMIT = 3;

const petStoreDeps = (): Promise<RequestHandlerDependencies> =>
  handlerDependencies({
    [KEY]: { plan: enterprisePlan(100_000, 1_000_000), role: 'customer' },
    [SMALL_KEY]: { plan: enterprisePlan(SMALL_LIMIT, 1_000), role: 'customer' },
  });

interface Mount {
  readonly name: string;
  /** Where clients reach the operations, mount path included: the handler's `basePath`. */
  readonly basePath: string;
  /** A path of the host's own, beside the handler: answered by the host, never by the handler. */
  readonly hostPath?: string;
  start(deps: RequestHandlerDependencies): Promise<Host>;
}

const MOUNTS: readonly Mount[] = [
  {
    name: 'a plain node:http listener',
    basePath: '/api/v1',
    start: async (deps) => {
      const server = createServer(createRequestHandler(deps, { basePath: '/api/v1' }));
      server.listen(0, '127.0.0.1');
      return listening(server);
    },
  },
  {
    name: 'express 5, app.use under /petstore',
    basePath: '/petstore/v1',
    hostPath: '/health',
    start: async (deps) => {
      const app = express();
      app.get('/health', (_req, res) => {
        res.send('ok');
      });
      // express strips /petstore from req.url; the handler routes on req.originalUrl, so its
      // basePath is the path clients use, mount included.
      app.use('/petstore', createRequestHandler(deps, { basePath: '/petstore/v1' }));
      return listening(app.listen(0, '127.0.0.1'));
    },
  },
  {
    name: 'fastify 5, a catch-all route under the /petstore prefix',
    basePath: '/petstore/v1',
    hostPath: '/health',
    start: async (deps) => {
      const handler = createRequestHandler(deps, { basePath: '/petstore/v1' });
      const app = Fastify();
      app.get('/health', async () => 'ok');
      await app.register(
        async (petstore) => {
          // The handler reads and limits request bodies itself: fastify must not parse them first.
          petstore.removeAllContentTypeParsers();
          petstore.addContentTypeParser('*', (_request, _payload, done) => done(null));
          petstore.all('/*', (request, reply) => {
            reply.hijack();
            handler(request.raw, reply.raw);
          });
        },
        { prefix: '/petstore' },
      );
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { origin: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  },
];

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

interface CallOptions {
  /** `null`: no Authorization. Default KEY. */
  readonly key?: string | null;
  readonly json?: unknown;
  /** Sent as is, with `contentType` (none when null). */
  readonly raw?: string;
  readonly contentType?: string | null;
}

interface PetBody {
  readonly id: number;
  readonly name: string;
  readonly status: string;
}

describe.each(MOUNTS)('createRequestHandler as $name', (mount) => {
  const { basePath } = mount;
  let host: Host;

  /** `target`: a path on the host (`/petstore/v1/pets`) or a link the handler wrote, resolved like a browser would. */
  const call = async (method: string, target: string, options: CallOptions = {}): Promise<Answer> => {
    const headers = new Headers();
    const key = options.key === undefined ? KEY : options.key;
    if (key !== null) headers.set('authorization', `Bearer ${key}`);
    const body = options.json !== undefined ? JSON.stringify(options.json) : options.raw;
    const contentType = options.contentType === undefined ? (body === undefined ? null : 'application/json') : options.contentType;
    if (contentType !== null) headers.set('content-type', contentType);
    const response = await fetch(new URL(target, host.origin), { method, headers, ...(body === undefined ? {} : { body: new TextEncoder().encode(body) }) });
    const text = await response.text();
    const isJson = /^application\/json/.test(response.headers.get('content-type') ?? '');
    return { status: response.status, headers: response.headers, body: isJson && text !== '' ? (JSON.parse(text) as unknown) : text, text };
  };

  const createPet = async (name: string): Promise<{ pet: PetBody; location: string | null }> => {
    const created = await call('POST', `${basePath}/pets`, { json: { name, categoryId: 1 } });
    expect(created.status, created.text).toBe(201);
    return { pet: created.body as PetBody, location: created.headers.get('location') };
  };

  const nextOf = (answer: Answer): string | undefined => /<([^>]*)>; rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];

  beforeAll(async () => {
    host = await mount.start(await petStoreDeps());
  });
  afterAll(() => host.close());

  it('creates a pet: 201 with a Location under the mount that leads to it', async () => {
    const { pet, location } = await createPet('Rex');
    expect(location).toBe(`${basePath}/pets/${pet.id}`);
    const fetched = await call('GET', location!);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(pet);
  });

  it('lists pets page by page: every rel="next" link is under the mount, followed to the end', async () => {
    const created: number[] = [];
    for (const name of ['A', 'B', 'C', 'D', 'E']) created.push((await createPet(name)).pet.id);
    const seen: number[] = [];
    let target: string | undefined = `${basePath}/pets?limit=2&status=available`;
    let pages = 0;
    while (target !== undefined) {
      const page = await call('GET', target);
      expect(page.status, page.text).toBe(200);
      seen.push(...(page.body as PetBody[]).map((pet) => pet.id));
      target = nextOf(page);
      if (target !== undefined) expect(target.startsWith(`${basePath}/pets?limit=2&status=available&cursor=`), target).toBe(true);
      pages++;
    }
    expect(seen).toEqual(expect.arrayContaining(created));
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(pages).toBe(Math.ceil(seen.length / 2));
    const head = await call('HEAD', `${basePath}/pets?limit=2`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(nextOf(head)).toBe(nextOf(await call('GET', `${basePath}/pets?limit=2`)));
  });

  it('fetches a pet with getPet: Deprecation, Sunset and a successor-version link under the mount', async () => {
    const { pet } = await createPet('Old');
    const fetched = await call('GET', `${basePath}/pets/${pet.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('deprecation')).toBe(`@${DEFAULT_DEPRECATED_AT.getTime() / 1000}`);
    expect(fetched.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(fetched.headers.get('link')).toBe(`<${basePath}/pets>; rel="successor-version"`);
    const successor = /<([^>]*)>/.exec(fetched.headers.get('link')!)![1]!;
    expect((await call('GET', successor)).status).toBe(200);
  });

  it('places an order (Location under the mount) and cancels it: the pet is available again', async () => {
    const { pet } = await createPet('Ordered');
    const placed = await call('POST', `${basePath}/store/orders`, { json: { petId: pet.id } });
    expect(placed.status, placed.text).toBe(201);
    const order = placed.body as { id: number; status: string };
    expect(order.status).toBe('placed');
    expect(placed.headers.get('location')).toBe(`${basePath}/store/orders/${order.id}`);
    expect(((await call('GET', `${basePath}/pets/${pet.id}`)).body as PetBody).status).toBe('pending');
    const cancelled = await call('DELETE', placed.headers.get('location')!);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect((cancelled.body as { status: string }).status).toBe('cancelled');
    expect(((await call('GET', `${basePath}/pets/${pet.id}`)).body as PetBody).status).toBe('available');
  });

  it('reads request bodies itself: its own 400 for bad JSON, 415 without application/json', async () => {
    const bad = await call('POST', `${basePath}/pets`, { raw: '{"name":', contentType: 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request', status: 400 });
    const text = await call('POST', `${basePath}/pets`, { raw: 'name=Rex', contentType: 'text/plain' });
    expect(text.body).toMatchObject({ code: 'unsupported_media_type', status: 415 });
    const untyped = await call('POST', `${basePath}/pets`, { raw: '{"name":"Rex","categoryId":1}', contentType: null });
    expect(untyped.body).toMatchObject({ code: 'unsupported_media_type', status: 415 });
  });

  it('answers 401 without a key', async () => {
    const refused = await call('GET', `${basePath}/pets`, { key: null });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(refused.body).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('answers 404 for an unknown path under the prefix, naming the path the client sent', async () => {
    const missing = await call('GET', `${basePath}/nothing-here`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'not_found', message: `No resource at ${basePath}/nothing-here.`, status: 404 });
    // The operations without the mount path are not served.
    const unmounted = await call('GET', '/v1/pets');
    expect(unmounted.status).toBe(404);
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const refused = await call('PUT', `${basePath}/pets`, { json: { name: 'Rex', categoryId: 1 } });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(refused.body).toMatchObject({ code: 'method_not_allowed', status: 405 });
  });

  it(`answers 429 rate_limited with Retry-After once a key of ${SMALL_LIMIT} a minute has spent them`, async () => {
    for (let i = 0; i < SMALL_LIMIT; i++) expect((await call('GET', `${basePath}/pets?limit=1`, { key: SMALL_KEY })).status).toBe(200);
    const refused = await call('GET', `${basePath}/pets?limit=1`, { key: SMALL_KEY });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('serves openapi.json whose server is the mount: its paths resolved against it are the working URLs', async () => {
    const documentUrl = `${basePath}/openapi.json`;
    const served = await call('GET', documentUrl, { key: null });
    expect(served.status).toBe(200);
    const document = served.body as {
      servers: { url: string }[];
      paths: Record<string, unknown>;
      components: { headers: { Location: { schema: { pattern: string } } } };
    };
    const built = buildOpenApiDocument(PET_STORE_OPERATIONS, { deprecatedAt: DEFAULT_DEPRECATED_AT, basePath, origins: SAME_ORIGIN });
    expect(document).toEqual(JSON.parse(JSON.stringify(built)));
    expect(document.servers.map((server) => server.url)).toEqual([basePath]);
    // A client resolves the server against the document's URL, then appends a documented path.
    const server = new URL(document.servers[0]!.url, new URL(documentUrl, host.origin));
    expect(Object.keys(document.paths)).toContain('/pets');
    expect((await call('GET', `${server.href}/pets?limit=1`)).status).toBe(200);
    const { location } = await createPet('Documented');
    expect(location).toMatch(new RegExp(document.components.headers.Location.schema.pattern));
  });

  const { hostPath } = mount;
  if (hostPath !== undefined) {
    it('leaves the host its own routes beside the mount', async () => {
      const own = await call('GET', hostPath, { key: null });
      expect(own.status).toBe(200);
      expect(own.text).toBe('ok');
    });
  }
});

describe('createRequestHandler options', () => {
  it('refuses a base path it could not route on or write into links', async () => {
    const deps = await petStoreDeps();
    for (const basePath of ['v1', '/v1/', '/:tenant/v1', '/v1/*', '/a b', '/v1?x']) {
      expect(() => createRequestHandler(deps, { basePath }), basePath).toThrow(/basePath/);
    }
    const handlers: PetStoreRequestHandler[] = ['', '/v1', '/petstore/api.v2'].map((basePath) => createRequestHandler(deps, { basePath }));
    expect(handlers).toHaveLength(3);
  });
});
