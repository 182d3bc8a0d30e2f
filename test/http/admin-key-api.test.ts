import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOpenApiDocument } from '../../src/adapters/http/admin/admin-openapi.js';
import type { KeyAdministration, KeyCreditsAnswer } from '../../src/adapters/http/admin/key-administration.js';
import { createAdminKeyHandler } from '../../src/adapters/http/admin-key-handler.js';
import { pathOf } from '../../src/adapters/http/pipeline/api-router.js';
import { createRequestContext } from '../../src/adapters/http/wire/request-context.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { err, ok } from '../../src/domain/result.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import type { ManagedApiKey } from '../../src/ports/api-key-registry.js';
import { ManualClock } from '../support/manual-clock.js';

/*
 * The admin key API as an adapter alone: on a bare listener, over key verbs that record what
 * they were asked, so what is answered before any verb runs is seen to run none.
 */

const TOKEN = 'admin-token-'.repeat(4);
const RULE = 'the test token';
const ID = 'key_0123456789abcdef';
const KEY: ManagedApiKey = { id: ID, label: 'ops', plan: STANDARD_PLANS.pro, role: 'customer', createdAt: Date.UTC(2026, 0, 1) };

const CREDITS: KeyCreditsAnswer = {
  key: KEY,
  rule: { name: 'monthly', credits: 100, refill: 'month' },
  standing: { balance: 40, period: Date.UTC(2026, 0, 1), refillAt: Date.UTC(2026, 1, 1) },
};

const asked: string[] = [];
const state = { storeDown: false };
const record = (verb: string): void => {
  asked.push(verb);
  if (state.storeDown) throw new StoreUnavailableError('Redis');
};
const keys: KeyAdministration = {
  isKeyId: (id) => /^key_[0-9a-f]{16}$/.test(id),
  create: async (fields, overrides) => {
    record(`create ${JSON.stringify(fields)}${overrides === undefined ? '' : ` overrides ${JSON.stringify(overrides)}`}`);
    return fields['plan'] === 'gold' ? err({ invalid: 'plan "gold": must be one of free, pro, business, enterprise' }) : ok({ key: KEY, secret: 'ps_secret' });
  },
  list: async () => (record('list'), ok({ keys: [{ key: KEY, usedToday: 3 }] })),
  show: async (id) => (record(`show ${id}`), err('not_found')),
  update: async (id, fields, overrides) => (record(`update ${id}${overrides === undefined ? '' : ` ${JSON.stringify(fields)} overrides ${JSON.stringify(overrides)}`}`), err('revoked')),
  unban: async (id) => (record(`unban ${id}`), ok(KEY)),
  reset: async (id) => (record(`reset ${id}`), ok(KEY)),
  roll: async (id, grace) => (record(`roll ${id} ${String(grace)}`), ok({ key: KEY, secret: 'ps_new' })),
  revoke: async (id) => (record(`revoke ${id}`), ok({ key: { ...KEY, revokedAt: KEY.createdAt } })),
  credits: async (id) => (record(`credits ${id}`), id === ID ? ok(CREDITS) : err('no_credits')),
  changeCredits: async (id, fields) => (record(`change credits ${id} ${JSON.stringify(fields)}`), ok({ ...CREDITS, before: 7 })),
  usage: async (query) => (
    record(`usage ${JSON.stringify(query)}`),
    query['key'] === undefined ? ok({ format: query['format'] === 'csv' ? 'csv' : 'json', body: query['format'] === 'csv' ? 'key\r\n' : '[]' }) : err('not_found')
  ),
};

let server: Server;
let url: string;

beforeAll(async () => {
  const api = createAdminKeyHandler({ token: TOKEN, tokenRule: RULE, keys, clock: new ManualClock(Date.UTC(2026, 0, 2)) });
  server = createServer((req, res) => {
    const answered = api(createRequestContext(req, res), req.method ?? 'GET', pathOf(req.url ?? '/'));
    // Not the key API's path: the listener's own, told apart here by a status no key route answers.
    if (answered === false) res.writeHead(299).end();
    else answered.catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (method: string, path: string, init: { token?: string | null; body?: string; type?: string } = {}) => {
  const token = init.token === undefined ? TOKEN : init.token;
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(init.body === undefined ? {} : { 'content-type': init.type ?? 'application/json' }) },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
};

describe('the admin key API on the shared HTTP stack', () => {
  it('leaves any other path to its listener', async () => {
    for (const path of ['/metrics', '/healthz', '/keyss', '/']) expect((await call('GET', path)).status, path).toBe(299);
  });

  it('asks for the token on every /keys path before it says anything of the route, and runs no verb', async () => {
    asked.length = 0;
    for (const [method, path] of [['GET', '/keys'], ['PUT', '/keys'], ['GET', '/keys/x/y'], ['POST', `/keys/${ID}/roll`]] as const) {
      for (const token of [null, `${TOKEN}x`, '']) {
        const { status, headers, json } = await call(method, path, { token });
        expect([status, headers.get('www-authenticate'), headers.get('cache-control'), json?.['code']], `${method} ${path}`).toEqual([
          401,
          'Bearer realm="petstore-admin"',
          'no-store',
          'unauthorized',
        ]);
      }
    }
    expect(asked).toEqual([]);
  });

  it('refuses unrouted requests as the public API does: 404, or 405 with the Allow of the shared router', async () => {
    const refusals = [
      ['PUT', '/keys', 405, 'GET, HEAD, POST'],
      ['DELETE', `/keys/${ID}`, 405, 'GET, HEAD, PATCH'],
      ['HEAD', `/keys/${ID}/roll`, 405, 'POST'],
      ['POST', '/openapi.json', 405, 'GET, HEAD'],
      ['GET', '/keys/x/y/z', 404, null],
    ] as const;
    for (const [method, path, status, allow] of refusals) {
      const answer = await call(method, path);
      expect([answer.status, answer.headers.get('allow'), answer.headers.get('cache-control')], `${method} ${path}`).toEqual([status, allow, 'no-store']);
    }
  });

  it('answers an id that names no key 404 without asking a verb or reading the body', async () => {
    asked.length = 0;
    for (const path of ['/keys/', '/keys/%00', '/keys/%ED%A0%80', '/keys/key_1/roll']) {
      const { status, json } = await call(path.endsWith('roll') ? 'POST' : 'PATCH', path, { body: 'not json' });
      expect([status, json?.['code']], path).toEqual([404, 'not_found']);
    }
    expect(asked).toEqual([]);
  });

  it('serves its document without the token, built by the shared builder from its table', async () => {
    const { status, json, headers } = await call('GET', '/openapi.json', { token: null });
    expect([status, headers.get('cache-control')]).toEqual([200, 'no-store']);
    expect(json).toEqual(JSON.parse(JSON.stringify(adminOpenApiDocument(RULE))));
    expect(Object.keys((json as { paths: object }).paths)).toEqual(['/keys', '/keys/{id}', '/keys/{id}/unban', '/keys/{id}/reset', '/keys/{id}/roll', '/keys/{id}/revoke', '/keys/usage', '/keys/{id}/credits', '/openapi.json']);
  });

  it('hands the verbs the JSON fields as text, and words their answers and refusals', async () => {
    asked.length = 0;
    expect(await call('POST', '/keys', { body: '{"plan":"enterprise","perMinute":5,"perDay":50}' })).toMatchObject({ status: 201, json: { secret: 'ps_secret', key: { id: ID, state: 'active' } } });
    expect(await call('POST', '/keys', { body: '{"plan":"gold"}' })).toMatchObject({ status: 400, json: { code: 'invalid_request', message: expect.stringContaining('gold') } });
    expect(await call('GET', '/keys')).toMatchObject({ status: 200, json: { keys: [{ key: { id: ID, createdAt: '2026-01-01T00:00:00Z' }, usedToday: 3 }] } });
    expect(await call('GET', `/keys/${ID}`)).toMatchObject({ status: 404, json: { code: 'not_found', message: `No key has the id "${ID}" (GET /keys lists them).` } });
    expect(await call('PATCH', `/keys/${ID}`, { body: '{"label":"x"}' })).toMatchObject({ status: 409, json: { code: 'key_revoked' } });
    expect(await call('POST', `/keys/${ID}/roll`)).toMatchObject({ status: 200, json: { secret: 'ps_new' } });
    expect(await call('POST', `/keys/${ID}/roll`, { body: '{"grace":"0"}' })).toMatchObject({ status: 200 });
    expect(await call('POST', `/keys/${ID}/revoke`)).toMatchObject({ status: 200, json: { key: { state: 'revoked' } } });
    expect(asked).toEqual([
      'create {"plan":"enterprise","perMinute":"5","perDay":"50"}',
      'create {"plan":"gold"}',
      'list',
      `show ${ID}`,
      `update ${ID}`,
      `roll ${ID} undefined`,
      `roll ${ID} 0`,
      `revoke ${ID}`,
    ]);
  });

  it("words a key's credits, hands a change's set or add as text, and refuses a plan without credits 404", async () => {
    asked.length = 0;
    expect(await call('GET', `/keys/${ID}/credits`)).toMatchObject({
      status: 200,
      json: { key: { id: ID }, rule: { name: 'monthly', credits: 100, refill: 'month' }, balance: 40, period: '2026-01-01T00:00:00.000Z', refillAt: '2026-02-01T00:00:00.000Z' },
    });
    const other = 'key_fedcba9876543210';
    expect(await call('GET', `/keys/${other}/credits`)).toMatchObject({ status: 404, json: { code: 'not_found', message: expect.stringContaining(`The plan of ${other} carries no credits`) } });
    expect(await call('POST', `/keys/${ID}/credits`, { body: '{"add":-5}' })).toMatchObject({ status: 200, json: { balance: 40, before: 7 } });
    expect(await call('POST', `/keys/${ID}/credits`, { body: '{"set":1.5}' })).toMatchObject({ status: 400, json: { message: 'set must be a whole number.' } });
    expect(await call('POST', `/keys/${ID}/credits`, { body: '{"take":1}' })).toMatchObject({ status: 400, json: { message: expect.stringContaining('Unknown field "take"') } });
    expect(asked).toEqual([`credits ${ID}`, `credits ${other}`, `change credits ${ID} {"add":"-5"}`]);
  });

  it('routes /keys/usage as the export, not as a key, its query read as declared', async () => {
    asked.length = 0;
    const exported = await call('GET', '/keys/usage?from=2026-01&to=2026-03');
    expect([exported.status, exported.headers.get('content-type'), exported.json]).toEqual([200, 'application/json; charset=utf-8', []]);
    const csv = await fetch(`${url}/keys/usage?format=csv`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect([csv.status, csv.headers.get('content-type'), csv.headers.get('cache-control'), await csv.text()]).toEqual([200, 'text/csv; charset=utf-8; header=present', 'no-store', 'key\r\n']);
    expect(await call('GET', `/keys/usage?key=${ID}`)).toMatchObject({ status: 404, json: { message: `No key has the id "${ID}" (GET /keys lists them).` } });
    expect(await call('GET', '/keys/usage?colour=red')).toMatchObject({ status: 400, json: { message: 'Unknown query parameter: colour.' } });
    expect(await call('GET', '/keys/usage?from=2026-01&from=2026-02')).toMatchObject({ status: 400, json: { message: 'The query parameter from is given twice.' } });
    expect(await call('GET', '/keys/usage', { token: null })).toMatchObject({ status: 401 });
    expect(asked).toEqual(['usage {"from":"2026-01","to":"2026-03"}', 'usage {"format":"csv"}', `usage {"key":"${ID}"}`]);
  });

  it("hands the verbs a body's overrides as the JSON given, beside its text fields, for them to read against the key's plan", async () => {
    asked.length = 0;
    await call('POST', '/keys', { body: '{"plan":"pro","overrides":{"minute":{"limit":600}}}' });
    await call('PATCH', `/keys/${ID}`, { body: '{"label":"x","overrides":{"minute":null,"day":{"limit":5,"mode":"shadow"}}}' });
    expect(asked).toEqual([
      'create {"plan":"pro"} overrides {"minute":{"limit":600}}',
      `update ${ID} {"label":"x"} overrides {"minute":null,"day":{"limit":5,"mode":"shadow"}}`,
    ]);
  });

  it('refuses a body the verbs cannot read before asking them, every answer no-store', async () => {
    asked.length = 0;
    const bodies = [
      ['{"plan":"pro","perMinute":"5"}', 'application/json', 400],
      ['{"colour":"red"}', 'application/json', 400],
      ['[]', 'application/json', 400],
      ['{"plan":"pro"}', 'text/plain', 415],
    ] as const;
    for (const [body, type, status] of bodies) {
      const answer = await call('POST', '/keys', { body, type });
      expect([answer.status, answer.headers.get('cache-control')], body).toEqual([status, 'no-store']);
    }
    expect(asked).toEqual([]);
  });

  it('answers 503 when a store does not answer, saying the change may or may not have been made', async () => {
    state.storeDown = true;
    try {
      expect(await call('POST', `/keys/${ID}/unban`)).toMatchObject({ status: 503, json: { code: 'service_unavailable', message: expect.stringContaining('read the key before trying again') } });
    } finally {
      state.storeDown = false;
    }
  });
});
