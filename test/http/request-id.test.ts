import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { createHttpServer, type PetStoreHttpServer } from '../../src/adapters/http/http-server.js';
import { loggedPath } from '../../src/adapters/http/pipeline/request-target.js';
import type { RequestFinishedEvent } from '../../src/adapters/http/wire/request-finished.js';
import { requestIdOf } from '../../src/adapters/http/wire/request-id.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { RequestAdmission } from '../../src/domain/quota/request-admission.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';
import { memoryServices } from '../support/memory-services.js';
import { runs } from '../support/property-runs.js';

const KEY = 'request-id-key-1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function start(
  options: { onFinished?: (event: RequestFinishedEvent) => void; pets?: PetRepository } = {},
): Promise<{ server: PetStoreHttpServer; base: string }> {
  const keys = new MemoryApiKeyRegistry();
  await keys.register(digestApiKey(KEY), { plan: STANDARD_PLANS.free, role: 'customer' });
  const admission = new RequestAdmission(keys, new MemoryQuotaStore(new SystemClock()), {
    anonymousPolicy: { rules: [{ name: 'minute', limit: 1_000, windowMs: 60_000 }] },
    ban: { strikes: 1_000, strikeWindowMs: 60_000, banMs: 60_000 },
  });
  const server = createHttpServer(
    { ...(await memoryServices(options.pets === undefined ? {} : { pets: options.pets })), admission },
    {
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 10_000,
      keepAliveTimeoutMs: 1_000,
      logError: () => {},
      ...(options.onFinished ? { onFinished: options.onFinished } : {}),
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

const close = (server: PetStoreHttpServer): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

describe('X-Request-Id', () => {
  let plain: { server: PetStoreHttpServer; base: string };
  beforeAll(async () => {
    plain = await start();
  });
  afterAll(() => close(plain.server));

  it('echoes a caller id of 1 to 128 safe characters on every answer, refusals included', async () => {
    for (const id of ['a', 'req-1._~:/+=', 'x'.repeat(128)]) {
      for (const [path, key] of [['/pets', KEY], ['/pets', undefined], ['/nowhere', KEY]] as const) {
        const response = await fetch(`${plain.base}${path}`, {
          headers: { 'x-request-id': id, ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
        });
        await response.arrayBuffer();
        expect(response.headers.get('x-request-id')).toBe(id);
      }
    }
  });

  it('generates a UUID when the caller sent none, or one that is too long or unsafe', async () => {
    const seen = new Set<string>();
    for (const id of [undefined, '', 'x'.repeat(129), 'has space', 'quote"', 'é']) {
      const headers: Record<string, string> = { authorization: `Bearer ${KEY}` };
      if (id !== undefined) headers['x-request-id'] = id;
      const response = await fetch(`${plain.base}/pets`, { headers });
      await response.arrayBuffer();
      const answered = response.headers.get('x-request-id') ?? '';
      expect(answered).toMatch(UUID);
      seen.add(answered);
    }
    expect(seen.size).toBe(6);
  });
});

describe('requestIdOf', () => {
  it('gives, for any header, an id of 1 to 128 printable ASCII characters that JSON writes as it is (the access log writes it unescaped)', () => {
    const header = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.stringMatching(/^[A-Za-z0-9._~:/+=-]{1,130}$/), fc.array(fc.string(), { maxLength: 2 }), fc.constant(undefined));
    fc.assert(
      fc.property(header, (sent) => {
        const id = requestIdOf(sent);
        expect(id).toMatch(/^[\x21-\x7e]{1,128}$/);
        expect(JSON.stringify(id)).toBe(`"${id}"`);
        if (typeof sent === 'string' && /^[A-Za-z0-9._~:/+=-]{1,128}$/.test(sent)) expect(id).toBe(sent);
      }),
      { numRuns: runs(5_000) },
    );
  });

  it('makes a new version 4 UUID for every request without a usable id, over several batches: 1,000 in a row, all distinct', () => {
    const made = Array.from({ length: 1_000 }, (_, i) => requestIdOf(i % 2 === 0 ? undefined : 'has space'));
    for (const id of made) expect(id).toMatch(UUID);
    expect(new Set(made).size).toBe(made.length);
  });
});

describe('the request-finished hook', () => {
  const events: RequestFinishedEvent[] = [];
  let traced: { server: PetStoreHttpServer; base: string };
  beforeAll(async () => {
    traced = await start({ onFinished: (event) => events.push(event) });
  });
  afterAll(() => close(traced.server));

  const until = async (count: number): Promise<void> => {
    for (let i = 0; i < 100 && events.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('reports route template, status, key digest prefix, plan and verdict, never the key', async () => {
    events.length = 0;
    const auth = { authorization: `Bearer ${KEY}` };
    await (await fetch(`${traced.base}/pets/7`, { headers: { ...auth, 'x-request-id': 'one' } })).arrayBuffer();
    await (await fetch(`${traced.base}/pets`, { headers: { 'x-request-id': 'two' } })).arrayBuffer();
    await (await fetch(`${traced.base}/nowhere`, { headers: { ...auth, 'x-request-id': 'three' } })).arrayBuffer();
    await until(3);
    const byId = new Map<string, RequestFinishedEvent>(events.map((event) => [event.requestId, event]));
    expect(byId.get('one')).toMatchObject({
      method: 'GET',
      route: '/pets/{petId}',
      status: 404,
      completed: true,
      key: digestApiKey(KEY).slice(0, 8),
      plan: 'free',
      verdict: 'admitted',
      shadowed: null,
      storeUnavailable: null,
    });
    expect(byId.get('two')).toMatchObject({ route: '/pets', status: 401, key: 'anonymous', plan: 'anonymous', verdict: 'admitted' });
    expect(byId.get('three')).toMatchObject({ route: null, status: 404 });
    for (const event of events) expect(event.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('names the store of a 503', async () => {
    const down = (): never => {
      throw new StoreUnavailableError('Redis');
    };
    // Not a thenable: the container resolves it as a plain value.
    const failing = new Proxy({} as PetRepository, { get: (_target, name) => (name === 'then' ? undefined : down) });
    const seen: RequestFinishedEvent[] = [];
    const { server, base } = await start({ pets: failing, onFinished: (event) => seen.push(event) });
    try {
      const response = await fetch(`${base}/pets`, { headers: { authorization: `Bearer ${KEY}` } });
      await response.arrayBuffer();
      expect(response.status).toBe(503);
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(seen[0]).toMatchObject({ status: 503, route: '/pets', storeUnavailable: 'Redis' });
    } finally {
      await close(server);
    }
  });
});

describe('the path an access line names', () => {
  it('leaves off the query (it may carry what a log must not keep) and keeps at most 256 characters', () => {
    const req = (url: string) => ({ url }) as IncomingMessage;
    expect(loggedPath(req('/v1/pets?limit=5&token=secret'), 256)).toBe('/v1/pets');
    expect(loggedPath(req(`/v1/${'a'.repeat(1_000)}?q`), 256)).toHaveLength(256);
    expect(loggedPath({ url: '/v1/pets', originalUrl: '/shop/v1/pets?x=1' } as IncomingMessage & { originalUrl: string }, 256)).toBe('/shop/v1/pets');
  });
});
