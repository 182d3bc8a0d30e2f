import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorSchema } from '../../src/adapters/http/contract/schemas.js';
import type { IssuedKeySchema, KeyAnswerSchema, KeyListSchema, KeyStandingSchema } from '../../src/adapters/http/admin/admin-key-schemas.js';
import { openConfiguredAdmin, runKeysCommand } from '../../src/app/cli/keys-command.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { RATE_LIMIT_FIELD_NAMES } from '../../src/domain/quota/rate-limit-fields.js';
import { ManualClock } from '../support/manual-clock.js';
import { nodesOf, startTestCluster, type TestCluster } from '../support/test-cluster.js';
import { createTestDatabase, type TestDatabase } from '../support/test-postgres.js';
import { acquireTestRedis, deleteKeysUnder, type TestRedis } from '../support/test-redis.js';

/*
 * Every key verb on every store, through both front ends: the `petstore keys` command and the
 * admin API. Each verb's effect is checked where it matters, on the API of a running server.
 * The server's clock is a test's: moving it past the key cache's 5 s stands for waiting.
 */

const CACHE_MS = 5_000;
const TOKEN = randomBytes(32).toString('hex');

interface KeyView {
  readonly banned: boolean;
  /** Refusals counting towards a ban now (null: the quota store cannot tell). */
  readonly strikes: number | null;
  readonly state: string;
  /** The minute rule: its limit and what was counted (undefined: not known, during a ban). */
  readonly minute: { readonly limit: number; readonly used: number | undefined };
}

type Refusal = 'not_found' | 'revoked';

/** An error answer of the admin API. */
type Refused = Static<typeof ErrorSchema>;

/** One front end of the key verbs, read back into one shape. */
interface Verbs {
  create(plan: string, label: string): Promise<{ id: string; secret: string }>;
  /** To enterprise with these limits. */
  update(id: string, perMinute: number, perDay: number): Promise<'updated' | Refusal>;
  show(id: string): Promise<KeyView | Refusal>;
  /** `not_banned`: the key is not banned, and nothing changed. */
  unban(id: string): Promise<'unbanned' | 'not_banned' | Refusal>;
  /** The key's counters, strikes and any ban forgotten. */
  reset(id: string): Promise<'reset' | Refusal>;
  roll(id: string, grace: string): Promise<{ secret: string } | Refusal>;
  revoke(id: string): Promise<'revoked' | 'already_revoked' | Refusal>;
  list(): Promise<{ id: string; state: string; usedToday: number | undefined }[]>;
  /** Input the verbs refuse before touching the store: true when every one was refused. */
  refusesBadInput(id: string): Promise<boolean>;
  /** A limit of the key's own for a rule of its plan; `refused`: the overrides do not fit the plan. */
  setLimit(id: string, rule: string, limit: number): Promise<'updated' | 'refused' | Refusal>;
  /** The rule's limit back to the plan's. */
  unsetLimit(id: string, rule: string): Promise<'updated' | 'refused' | Refusal>;
}

function cliVerbs(environ: Record<string, string>, clock: ManualClock): Verbs {
  const run = async (argv: string[]): Promise<{ code: number; out: string[] }> => {
    const out: string[] = [];
    const code = await runKeysCommand(
      argv,
      environ,
      { out: (line) => out.push(line), err: (line) => out.push(line) },
      { openAdmin: openConfiguredAdmin({ clock }) },
    );
    return { code, out };
  };
  const refusal = (out: string[]): Refusal => (out.join('\n').includes('is revoked') ? 'revoked' : 'not_found');
  const field = (out: string[], name: string): string => out.find((line) => line.startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? '';
  return {
    async create(plan, label) {
      const { code, out } = await run(['create', '--plan', plan, '--label', label]);
      expect(code, out.join('\n')).toBe(0);
      return { id: field(out, 'id'), secret: field(out, 'key') };
    },
    async update(id, perMinute, perDay) {
      const { code, out } = await run(['update', id, '--plan', 'enterprise', '--per-minute', String(perMinute), '--per-day', String(perDay)]);
      return code === 0 ? 'updated' : refusal(out);
    },
    async show(id) {
      const { code, out } = await run(['show', id]);
      if (code !== 0) return refusal(out);
      const [, limit, used] = out.find((line) => line.startsWith('minute '))?.split(/\s+/) ?? [];
      return { banned: field(out, 'banned').startsWith('yes'), strikes: Number(field(out, 'strikes').split(' ')[0]), state: field(out, 'state'), minute: { limit: Number(limit), used: used === '-' ? undefined : Number(used) } };
    },
    async unban(id) {
      const { code, out } = await run(['unban', id]);
      return code === 0 ? 'unbanned' : out.join('\n').includes(`${id} is not banned: nothing changed`) ? 'not_banned' : refusal(out);
    },
    async reset(id) {
      const { code, out } = await run(['reset', id]);
      return code === 0 ? 'reset' : refusal(out);
    },
    async roll(id, grace) {
      const { code, out } = await run(['roll', id, '--grace', grace]);
      return code === 0 ? { secret: field(out, 'key') } : refusal(out);
    },
    async revoke(id) {
      const { code, out } = await run(['revoke', id]);
      if (code !== 0) return refusal(out);
      return out.join('\n').includes('revoked already') ? 'already_revoked' : 'revoked';
    },
    async list() {
      const { code, out } = await run(['list']);
      expect(code).toBe(0);
      return out.slice(1).map((row) => {
        const cells = row.split(/\s+/);
        const role = cells.findIndex((cell) => cell === 'customer' || cell === 'staff');
        const used = cells[role + 1];
        return { id: cells[0] ?? '', state: cells[1] ?? '', usedToday: used === '-' ? undefined : Number(used) };
      });
    },
    async refusesBadInput(id) {
      const lines = [
        ['create', '--plan', 'gold'],
        ['update', id, '--plan', 'enterprise', '--per-minute', '0', '--per-day', '5'],
        ['roll', id, '--grace', '2w'],
        ['update', id, '--expires-in', 'soon'],
      ];
      const codes = await Promise.all(lines.map(async (argv) => (await run(argv)).code));
      return codes.every((code) => code === 2);
    },
    async setLimit(id, rule, limit) {
      const { code, out } = await run(['update', id, '--limit', `${rule}=${limit}`]);
      return code === 0 ? 'updated' : out.join('\n').includes('has no rule') ? 'refused' : refusal(out);
    },
    async unsetLimit(id, rule) {
      const { code, out } = await run(['update', id, '--unset-limit', rule]);
      return code === 0 ? 'updated' : out.join('\n').includes('has no rule') ? 'refused' : refusal(out);
    },
  };
}

function adminApiVerbs(adminUrl: string): Verbs {
  /** Json: the shape of the answer the caller expects (taken as given, not checked here). */
  const call = async <Json = unknown>(method: string, path: string, body?: unknown, token = TOKEN): Promise<{ status: number; json: Json }> => {
    const response = await fetch(`${adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    return { status: response.status, json: (await response.json()) as Json };
  };
  const refusal = (status: number): Refusal => {
    expect([404, 409]).toContain(status);
    return status === 409 ? 'revoked' : 'not_found';
  };
  return {
    async create(plan, label) {
      const { status, json } = await call<Static<typeof IssuedKeySchema>>('POST', '/keys', { plan, label });
      expect(status).toBe(201);
      return { id: json.key.id, secret: json.secret };
    },
    async update(id, perMinute, perDay) {
      const { status } = await call('PATCH', `/keys/${id}`, { plan: 'enterprise', perMinute, perDay });
      return status === 200 ? 'updated' : refusal(status);
    },
    async show(id) {
      const { status, json } = await call<Static<typeof KeyStandingSchema>>('GET', `/keys/${id}`);
      if (status !== 200) return refusal(status);
      const minute = json.rules.find((rule) => rule.name === 'minute')!;
      return {
        banned: json.bannedUntil !== null,
        strikes: json.strikes,
        state: json.key.state,
        minute: { limit: minute.limit, used: minute.used ?? undefined },
      };
    },
    async unban(id) {
      const { status, json } = await call<Refused>('POST', `/keys/${id}/unban`);
      if (status === 409 && json.code === 'key_not_banned') return 'not_banned';
      return status === 200 ? 'unbanned' : refusal(status);
    },
    async reset(id) {
      const { status } = await call('POST', `/keys/${id}/reset`);
      return status === 200 ? 'reset' : refusal(status);
    },
    async roll(id, grace) {
      const { status, json } = await call<Static<typeof IssuedKeySchema>>('POST', `/keys/${id}/roll`, { grace });
      return status === 200 ? { secret: json.secret } : refusal(status);
    },
    async revoke(id) {
      const before = await call<Static<typeof KeyStandingSchema>>('GET', `/keys/${id}`);
      const { status, json } = await call<Static<typeof KeyAnswerSchema>>('POST', `/keys/${id}/revoke`);
      if (status !== 200) return refusal(status);
      expect(json.key.state).toBe('revoked');
      return before.json.key.state === 'revoked' ? 'already_revoked' : 'revoked';
    },
    async list() {
      const { status, json } = await call<Static<typeof KeyListSchema>>('GET', '/keys');
      expect(status).toBe(200);
      return json.keys.map(({ key, usedToday }) => ({ id: key.id, state: key.state, usedToday: usedToday ?? undefined }));
    },
    async refusesBadInput(id) {
      const answers = await Promise.all([
        call<Refused>('POST', '/keys', { plan: 'gold' }),
        call<Refused>('PATCH', `/keys/${id}`, { plan: 'enterprise', perMinute: 0, perDay: 5 }),
        call<Refused>('POST', `/keys/${id}/roll`, { grace: '2w' }),
        call<Refused>('PATCH', `/keys/${id}`, { expiresIn: 'soon' }),
        call<Refused>('PATCH', `/keys/${id}`, { colour: 'red' }),
        call<Refused>('POST', '/keys', { plan: 'pro', perMinute: '5' }),
      ]);
      const wrongToken = await call('GET', `/keys/${id}`, undefined, `${TOKEN}x`);
      // Which of two tokens was meant cannot be known: Node keeps one of repeated Authorization headers.
      const twoTokens = await new Promise<number | undefined>((resolve, reject) => {
        const req = request(`${adminUrl}/keys`, (res) => resolve(res.resume().statusCode));
        req.setHeader('authorization', [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
        req.on('error', reject).end();
      });
      const refusedAll = answers.every(({ status, json }) => status === 400 && json.code === 'invalid_request');
      return refusedAll && wrongToken.status === 401 && twoTokens === 400;
    },
    async setLimit(id, rule, limit) {
      const { status } = await call('PATCH', `/keys/${id}`, { overrides: { [rule]: { limit } } });
      return status === 200 ? 'updated' : status === 400 ? 'refused' : refusal(status);
    },
    async unsetLimit(id, rule) {
      const { status } = await call('PATCH', `/keys/${id}`, { overrides: { [rule]: null } });
      return status === 200 ? 'updated' : status === 400 ? 'refused' : refusal(status);
    },
  };
}

interface Served {
  readonly server: RunningPetStore;
  readonly clock: ManualClock;
  /** The environment `petstore keys` reaches the same stores with; undefined on the memory store. */
  readonly cliEnviron: Record<string, string> | undefined;
}

/** A request of the key to the API: its status, its error code and the minute limit it was answered under. */
async function use(server: RunningPetStore, secret: string): Promise<{ status: number; code: string | undefined; limit: string | null }> {
  const response = await fetch(`${server.baseUrl}/pets?limit=1`, { headers: { authorization: `Bearer ${secret}` } });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, code: response.ok ? undefined : body.code, limit: response.headers.get(RATE_LIMIT_FIELD_NAMES.limit) };
}

/** The walk every front end takes on every store: each verb, its effect on the API, and its refusals. */
async function walkEveryVerb({ server, clock }: Served, verbs: Verbs): Promise<void> {
  const { id, secret } = await verbs.create('pro', 'walk');
  expect(await use(server, secret)).toEqual({ status: 200, code: undefined, limit: '300' });

  expect(await verbs.update(id, 5, 1_000)).toBe('updated');
  clock.advance(CACHE_MS);
  expect((await use(server, secret)).limit).toBe('5');

  // 5 admitted in the minute (2 above), then refusals until the ban: the 20th strike is answered api_key_banned.
  const codes: (string | undefined)[] = [];
  for (let i = 0; i < 30 && codes.at(-1) !== 'api_key_banned'; i++) codes.push((await use(server, secret)).code);
  expect(codes.filter((code) => code === undefined)).toHaveLength(3);
  expect(codes.at(-1)).toBe('api_key_banned');
  expect(await verbs.show(id)).toEqual({ banned: true, strikes: 0, state: 'active', minute: { limit: 5, used: undefined } });

  expect(await verbs.unban(id)).toBe('unbanned');
  clock.advance(CACHE_MS);
  expect((await use(server, secret)).status).toBe(200);
  expect(await verbs.show(id)).toEqual({ banned: false, strikes: 0, state: 'active', minute: { limit: 5, used: 1 } });

  // Not banned: unban says so and changes nothing; reset forgets the counters.
  expect(await verbs.unban(id)).toBe('not_banned');
  expect(await verbs.show(id)).toMatchObject({ banned: false, minute: { used: 1 } });
  expect(await verbs.reset(id)).toBe('reset');
  expect(await verbs.show(id)).toMatchObject({ banned: false, minute: { used: 0 } });
  clock.advance(CACHE_MS);
  expect((await use(server, secret)).status).toBe(200);

  // Rolled with a grace: both secrets work, and count against one quota.
  const rolled = await verbs.roll(id, '1h');
  if (typeof rolled === 'string') throw new Error(`roll refused: ${rolled}`);
  expect(rolled.secret).not.toBe(secret);
  expect((await use(server, rolled.secret)).status).toBe(200);
  expect((await use(server, secret)).status).toBe(200);
  expect(await verbs.show(id)).toMatchObject({ minute: { used: 3 } });

  // Rolled again at once: only the newest secret works, within the cache's 5 s.
  const again = await verbs.roll(id, '0');
  if (typeof again === 'string') throw new Error(`roll refused: ${again}`);
  clock.advance(CACHE_MS);
  expect((await use(server, again.secret)).status).toBe(200);
  expect((await use(server, rolled.secret)).status).toBe(401);
  expect((await use(server, secret)).status).toBe(401);
  expect((await verbs.list()).find((key) => key.id === id)).toEqual({ id, state: 'active', usedToday: 4 });

  expect(await verbs.revoke(id)).toBe('revoked');
  clock.advance(CACHE_MS);
  expect((await use(server, again.secret)).status).toBe(401);
  expect(await verbs.revoke(id)).toBe('already_revoked');
  expect(await verbs.show(id)).toMatchObject({ state: 'revoked' });
  expect((await verbs.list()).find((key) => key.id === id)).toMatchObject({ state: 'revoked' });

  // Refused, changing nothing: a revoked key, an unknown id, input out of range.
  expect(await verbs.update(id, 50, 1_000)).toBe('revoked');
  expect(await verbs.roll(id, '1h')).toBe('revoked');
  for (const verb of [() => verbs.show('key_0000'), () => verbs.unban('key_0000'), () => verbs.reset('key_0000'), () => verbs.roll('key_0000', '1h'), () => verbs.revoke('key_0000'), () => verbs.update('key_0000', 5, 5)]) {
    expect(await verb()).toBe('not_found');
  }
  const before = await verbs.list();
  expect(await verbs.refusesBadInput(id)).toBe(true);
  expect(await verbs.list()).toEqual(before);
}

/** A key's own limit of its plan's minute rule, on the API within the cache's 5 s, and back to the plan's; refused for a rule the plan has not. */
async function walkOverrides({ server, clock }: Served, verbs: Verbs): Promise<void> {
  const { id, secret } = await verbs.create('pro', 'overrides');
  expect((await use(server, secret)).limit).toBe('300');
  expect(await verbs.setLimit(id, 'minute', 2)).toBe('updated');
  expect(await verbs.setLimit(id, 'hour', 2)).toBe('refused');
  clock.advance(CACHE_MS);
  // One request counted before: one more admitted under the key's own 2 a minute, then refused.
  expect(await use(server, secret)).toEqual({ status: 200, code: undefined, limit: '2' });
  expect(await use(server, secret)).toEqual({ status: 429, code: 'rate_limited', limit: '2' });
  expect(await verbs.show(id)).toMatchObject({ minute: { limit: 2, used: 2 } });
  expect(await verbs.unsetLimit(id, 'minute')).toBe('updated');
  clock.advance(CACHE_MS);
  expect(await use(server, secret)).toEqual({ status: 200, code: undefined, limit: '300' });
  expect(await verbs.unsetLimit('key_0000', 'minute')).toBe('not_found');
  expect(await verbs.revoke(id)).toBe('revoked');
  expect(await verbs.setLimit(id, 'minute', 5)).toBe('revoked');
}

interface StoreSetup {
  readonly name: string;
  /** The store's environment variables, and how to tidy up after. */
  open(): Promise<{ environ: Record<string, string>; cleanup(): Promise<void> }>;
}

const STORES: readonly StoreSetup[] = [
  { name: 'memory', open: async () => ({ environ: {}, cleanup: async () => {} }) },
  {
    name: 'Redis',
    open: async () => {
      const redis: TestRedis = await acquireTestRedis();
      return { environ: { PETSTORE_STORE: 'redis', REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.prefix }, cleanup: () => redis.cleanup() };
    },
  },
  {
    name: 'a Redis Cluster',
    open: async () => {
      const cluster: TestCluster = await startTestCluster();
      const prefix = `key-verbs-${randomBytes(4).toString('hex')}:`;
      return {
        environ: { PETSTORE_STORE: 'redis', REDIS_CLUSTER_NODES: nodesOf(cluster).map(({ host, port }) => `${host}:${port}`).join(','), PETSTORE_REDIS_PREFIX: prefix },
        cleanup: () => cluster.stop(),
      };
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const database: TestDatabase = await createTestDatabase();
      const redis = await acquireTestRedis();
      return {
        environ: { PETSTORE_STORE: 'postgres', DATABASE_URL: database.url, REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.prefix, PETSTORE_PG_TIMEOUT_MS: '5000' },
        cleanup: async () => {
          await database.drop();
          await deleteKeysUnder(redis.url, redis.prefix);
        },
      };
    },
  },
];

describe.each(STORES)('every key verb on $name', (setup) => {
  let served: Served;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const store = await setup.open();
    cleanup = store.cleanup;
    const clock = new ManualClock(Date.now());
    const server = await startPetStore(
      { PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_ADMIN_TOKEN: TOKEN, PETSTORE_API_KEYS: 'configured-key-1:free', ...store.environ },
      { clock, storeTimeoutMs: 5_000 },
    );
    served = { server, clock, cliEnviron: setup.name === 'memory' ? undefined : store.environ };
  });
  afterAll(async () => {
    await served?.server.close(0, 0);
    await cleanup?.();
  });

  it('through the admin API', async () => {
    await walkEveryVerb(served, adminApiVerbs(served.server.adminUrl ?? ''));
  });

  it('overrides of a key through the admin API', async () => {
    await walkOverrides(served, adminApiVerbs(served.server.adminUrl ?? ''));
  });

  it('answers an id that cannot be a key\'s (a NUL byte, a bad escape decoded, too long) 404 in the Error format, for every verb', async () => {
    const { adminUrl } = served.server;
    for (const id of ['%00', 'key_%00', '%ED%A0%80', `key_${'0'.repeat(10_000)}`, 'key_0123456789ABCDEF']) {
      for (const [method, path] of [['GET', ''], ['PATCH', ''], ['POST', '/unban'], ['POST', '/reset'], ['POST', '/roll'], ['POST', '/revoke']] as const) {
        const response = await fetch(`${adminUrl}/keys/${id}${path}`, {
          method,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          ...(method === 'GET' ? {} : { body: '{}' }),
        });
        expect([response.status, await response.json()], `${method} /keys/${id.slice(0, 20)}${path}`).toEqual([404, { code: 'not_found', message: expect.any(String), status: 404 }]);
      }
    }
  });

  it('through petstore keys', async () => {
    const { cliEnviron } = served;
    if (cliEnviron === undefined) {
      // Each server process has its own memory store: a command, in a process of its own, refuses it.
      const out: string[] = [];
      expect(await runKeysCommand(['list'], {}, { out: (line) => out.push(line), err: (line) => out.push(line) })).toBe(1);
      expect(out.join('\n')).toMatch(/the memory store lives inside each server process/);
      return;
    }
    await walkEveryVerb(served, cliVerbs(cliEnviron, served.clock));
    await walkOverrides(served, cliVerbs(cliEnviron, served.clock));
  });
});

describe('the admin listener without PETSTORE_ADMIN_TOKEN', () => {
  it('serves no key route: 404 with or without a token, and metrics and health as before', async () => {
    const server = await startPetStore({ PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0' });
    try {
      for (const [method, path] of [['GET', '/keys'], ['POST', '/keys'], ['GET', '/openapi.json'], ['POST', '/keys/key_1/roll']] as const) {
        const response = await fetch(`${server.adminUrl}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
        expect(response.status, `${method} ${path}`).toBe(404);
      }
      expect((await fetch(`${server.adminUrl}/healthz`)).status).toBe(200);
    } finally {
      await server.close(0, 0);
    }
  });
});

describe('HEAD on the admin API', () => {
  it('answers HEAD wherever GET is served (the GET’s status and headers, no body), and lists HEAD in every Allow that lists GET', async () => {
    const server = await startPetStore({ PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_ADMIN_TOKEN: TOKEN });
    try {
      const call = (method: string, path: string) => fetch(`${server.adminUrl}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
      const created = (await (await fetch(`${server.adminUrl}/keys`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{"plan":"pro"}' })).json()) as { key: { id: string } };
      for (const path of ['/keys', `/keys/${created.key.id}`, '/keys/key_0000', '/openapi.json']) {
        const got = await call('GET', path);
        const gotBody = await got.text();
        const head = await call('HEAD', path);
        expect([head.status, head.headers.get('content-type'), head.headers.get('cache-control'), await head.text()], path).toEqual([got.status, got.headers.get('content-type'), got.headers.get('cache-control'), '']);
        expect(Number(head.headers.get('content-length')), path).toBe(Buffer.byteLength(gotBody));
      }
      const put = await call('PUT', '/keys');
      expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD, POST']);
      const putOne = await call('PUT', `/keys/${created.key.id}`);
      expect([putOne.status, putOne.headers.get('allow')]).toEqual([405, 'GET, HEAD, PATCH']);
      const headRoll = await call('HEAD', `/keys/${created.key.id}/roll`);
      expect([headRoll.status, headRoll.headers.get('allow')]).toEqual([405, 'POST']);
    } finally {
      await server.close(0, 0);
    }
  });
});
