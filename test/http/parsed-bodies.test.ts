import express from 'express';
import Fastify from 'fastify';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestHandler, type RequestHandlerDependencies } from '../../src/adapters/http/request-handler.js';
import { enterprisePlan } from '../../src/domain/quota/plan.js';
import { handlerDependencies, listening, type Host } from '../support/handler-hosts.js';

/*
 * The handler mounted behind a host's body parser: every POST and PATCH is served from the
 * body the host parsed, with the same validation, limits and errors as a body the handler reads
 * itself; a body read and thrown away before it is a 500 naming the cause at once, never a wait.
 */

const CUSTOMER = 'parsed-customer-1';
const STAFF = 'parsed-staff-1';
const BASE = '/petstore/v1';

const deps = (): Promise<RequestHandlerDependencies> =>
  handlerDependencies({
    [CUSTOMER]: { plan: enterprisePlan(100_000, 1_000_000), role: 'customer' },
    [STAFF]: { plan: enterprisePlan(100_000, 1_000_000), role: 'staff' },
  });

type Start = (services: RequestHandlerDependencies) => Promise<Host>;

const expressWith =
  (parser: express.RequestHandler): Start =>
  async (services) => {
    const app = express();
    app.use(parser);
    app.use('/petstore', createRequestHandler(services, { basePath: BASE }));
    return listening(app.listen(0, '127.0.0.1'));
  };

const fastifyHost =
  (leaveBody: boolean): Start =>
  async (services) => {
    const handler = createRequestHandler(services, { basePath: BASE });
    const app = Fastify();
    // fastify's default JSON parser reads the body; the mount hands the parsed body over on the raw request.
    app.all('/petstore/*', (request, reply) => {
      reply.hijack();
      if (leaveBody) (request.raw as IncomingMessage & { body?: unknown }).body = request.body;
      handler(request.raw, reply.raw);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  };

const HOSTS: readonly { readonly name: string; readonly start: Start }[] = [
  {
    name: 'plain node:http, no parser (the reference)',
    start: async (services) => listening(createServer(createRequestHandler(services, { basePath: BASE })).listen(0, '127.0.0.1')),
  },
  { name: 'express 5 behind express.json()', start: expressWith(express.json()) },
  { name: 'express 5 behind express.raw()', start: expressWith(express.raw({ type: '*/*' })) },
  { name: 'express 5 behind express.text()', start: expressWith(express.text({ type: '*/*' })) },
  { name: "fastify 5 with its default parser, request.body handed over", start: fastifyHost(true) },
];

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { readonly id?: number; readonly code?: string; readonly message?: string; readonly status?: string; readonly name?: string };
}

const call = async (origin: string, method: string, path: string, body: string, key = CUSTOMER, headers: Record<string, string> = {}): Promise<Answer> => {
  const response = await fetch(`${origin}${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
};

describe.each(HOSTS)('$name', ({ start }) => {
  let host: Host;
  beforeAll(async () => {
    host = await start(await deps());
  });
  afterAll(async () => {
    await host.close();
  });

  it('POST /pets: creates from the parsed body, refuses an invalid one with the same 400, and replays an idempotent repeat', async () => {
    const created = await call(host.origin, 'POST', '/pets', '{"name":"Rex","categoryId":1}');
    expect([created.status, created.body.name]).toEqual([201, 'Rex']);
    const invalid = await call(host.origin, 'POST', '/pets', '{"categoryId":1}');
    expect([invalid.status, invalid.body.code, invalid.body.message]).toEqual([400, 'invalid_request', 'name is required']);
    const first = await call(host.origin, 'POST', '/pets', '{"name":"Tom","categoryId":2}', CUSTOMER, { 'idempotency-key': 'parsed-1' });
    const again = await call(host.origin, 'POST', '/pets', '{"name":"Tom","categoryId":2}', CUSTOMER, { 'idempotency-key': 'parsed-1' });
    expect([first.status, again.status, again.body.id, again.headers.get('idempotent-replayed')]).toEqual([201, 201, first.body.id, 'true']);
    const other = await call(host.origin, 'POST', '/pets', '{"name":"Kit","categoryId":2}', CUSTOMER, { 'idempotency-key': 'parsed-1' });
    expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('POST /store/orders and PATCH /store/orders/{id}: place, refuse a bad body with the same 400, and approve', async () => {
    const pet = await call(host.origin, 'POST', '/pets', '{"name":"Bo","categoryId":1}');
    const order = await call(host.origin, 'POST', '/store/orders', JSON.stringify({ petId: pet.body.id }));
    expect([order.status, order.body.status]).toEqual([201, 'placed']);
    const badOrder = await call(host.origin, 'POST', '/store/orders', '{"petId":"1"}');
    expect([badOrder.status, badOrder.body.code]).toEqual([400, 'invalid_request']);
    const badUpdate = await call(host.origin, 'PATCH', `/store/orders/${order.body.id}`, '{"status":"cancelled"}', STAFF);
    expect([badUpdate.status, badUpdate.body.message]).toEqual([400, 'status must be one of approved, delivered']);
    const approved = await call(host.origin, 'PATCH', `/store/orders/${order.body.id}`, '{"status":"approved"}', STAFF);
    expect([approved.status, approved.body.status]).toEqual([200, 'approved']);
  });

  it('refuses a body over the limit with 413, and one that is not a JSON object with 400', async () => {
    const large = await call(host.origin, 'POST', '/pets', JSON.stringify({ name: 'x'.repeat(20_000), categoryId: 1 }));
    expect([large.status, large.body.code]).toEqual([413, 'payload_too_large']);
    const array = await call(host.origin, 'POST', '/pets', '[1,2]');
    expect([array.status, array.body.code]).toEqual([400, 'invalid_request']);
  });
});

describe('a body read before the handler and left nowhere', () => {
  const CONSUMED: readonly { readonly name: string; readonly start: Start }[] = [
    {
      name: 'express, a middleware that drains the body',
      start: expressWith((req, _res, next) => {
        req.resume();
        req.on('end', () => next());
      }),
    },
    { name: 'fastify with its default parser, request.body not handed over', start: fastifyHost(false) },
  ];

  it.each(CONSUMED)('$name: answers 500 at once, naming the cause, for every POST and PATCH', async ({ start }) => {
    const host = await start(await deps());
    try {
      for (const [method, path, key] of [
        ['POST', '/pets', CUSTOMER],
        ['POST', '/store/orders', CUSTOMER],
        ['PATCH', '/store/orders/1', STAFF],
      ] as const) {
        const started = Date.now();
        const answer = await call(host.origin, method, path, '{"name":"Rex","categoryId":1,"petId":1,"status":"approved"}', key);
        expect(Date.now() - started).toBeLessThan(1_000);
        expect([answer.status, answer.body.code]).toEqual([500, 'internal_error']);
        expect(answer.body.message).toMatch(/read before this handler.*mount the pet store handler before any body parser, or leave the parsed body on req\.body/);
      }
    } finally {
      await host.close();
    }
  });
});
