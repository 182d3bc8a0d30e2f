import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, stopAll, type CliProcess } from '../support/cli-process.js';
import { HttpClient, listAll, outcomes, type HttpResult, type PetBody } from '../support/http-client.js';
import { requestWithHeaders } from '../support/test-pet-store.js';
import { createTestDatabase, runPsql, type TestDatabase } from '../support/test-postgres.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

const CUSTOMER = 'pg-multi-cust-1';
const STAFF = 'pg-multi-staff-1';
const API_KEYS = [`${CUSTOMER}:enterprise:100000:10000000`, `${STAFF}:enterprise:100000:10000000:staff`].join(',');
const INSTANCES = 3;

/** The migrations this build ships, as `version|name` rows (psql's unaligned output). */
const shippedMigrations = (): string[] =>
  readdirSync('migrations')
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => {
      const [, version = '', name = ''] = /^(\d{4})_(.+)\.sql$/.exec(file) ?? [];
      return `${Number(version)}|${name}`;
    });

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/*
 * Three server processes on one PostgreSQL database (PETSTORE_STORE=postgres), started at the same
 * moment on an empty database: they migrate it once between them, and then share pets, orders,
 * Idempotency-Key records and the keys `petstore keys` manages.
 */
describe('three server processes on one PostgreSQL database', () => {
  let database: TestDatabase;
  let redis: TestRedis;
  const servers: CliProcess[] = [];
  /** Per instance: a client of each key. */
  const instances: { customer: HttpClient; staff: HttpClient }[] = [];

  beforeAll(async () => {
    [database, redis] = await Promise.all([createTestDatabase(), acquireTestRedis()]);
    for (let i = 0; i < INSTANCES; i++) {
      servers.push(
        startCli({
          PORT: '0',
          PETSTORE_ENV: 'staging',
          PETSTORE_STORE: 'postgres',
          DATABASE_URL: database.url,
          PETSTORE_API_KEYS: API_KEYS,
          REDIS_URL: redis.url,
          PETSTORE_REDIS_PREFIX: redis.prefix,
          PETSTORE_ACCESS_LOG: 'off',
          // Exactness and ids, not outages: a loaded machine must not turn a slow statement into a 503.
          PETSTORE_PG_TIMEOUT_MS: '5000',
        }),
      );
    }
    // Awaited only once all three are spawned: they start, and migrate, at the same time.
    const urls = await Promise.all(servers.map(async (server) => (await server.waitFor(/listening on (\S+\/v1)/, 20_000))[1] ?? ''));
    for (const url of urls) instances.push({ customer: new HttpClient(url, CUSTOMER), staff: new HttpClient(url, STAFF) });
  });
  afterAll(async () => {
    await stopAll(servers);
    await redis?.cleanup();
    await database?.drop();
  });

  const instance = (i: number): { customer: HttpClient; staff: HttpClient } => instances[i % INSTANCES]!;

  it('all three start on the fresh database, and petstore_schema_migrations holds each migration exactly once', async () => {
    expect(instances).toHaveLength(INSTANCES);
    for (const server of servers) expect(server.child.exitCode).toBeNull();
    const rows = await runPsql(database.url, 'SELECT version, name FROM petstore_schema_migrations ORDER BY version, name');
    expect(rows.split('\n')).toEqual(shippedMigrations());
    const applied = await runPsql(database.url, 'SELECT count(*), count(DISTINCT version) FROM petstore_schema_migrations');
    expect(applied).toBe(`${shippedMigrations().length}|${shippedMigrations().length}`);
  });

  it('gives exactly one 201 to 30 concurrent orders for one pet spread over the three; the other 29 are 409 pet_unavailable', async () => {
    const created = await instance(0).customer.post('/pets', { json: { name: 'Contested over three', categoryId: 1 } });
    expect(created.status, created.text).toBe(201);
    const pet = created.body as PetBody;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => instance(i).customer.post('/store/orders', { json: { petId: pet.id } })));
    expect(outcomes(results)).toEqual({ '201': 1, '409 pet_unavailable': 29 });
    const winner = results.find((result) => result.status === 201)?.body as { id: number; petId: number };
    expect(winner.petId).toBe(pet.id);
    for (let i = 0; i < INSTANCES; i++) {
      expect((await instance(i).customer.get(`/store/orders/${winner.id}`)).body).toEqual(winner);
      expect(((await instance(i).customer.get(`/pets/${pet.id}`)).body as PetBody).status).toBe('pending');
    }
    const ordersOfPet = await runPsql(database.url, `SELECT count(*) FROM orders WHERE pet_id = ${pet.id}`);
    expect(ordersOfPet).toBe('1');
  });

  it('gives 200 distinct ids to 200 concurrent creates spread over the three, and every instance reads every pet', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => instance(i).customer.post('/pets', { json: { name: `Spread ${i}`, categoryId: 1 + (i % 5) } })),
    );
    expect(outcomes(results)).toEqual({ '201': 200 });
    const pets = results.map((result) => result.body as PetBody);
    expect(new Set(pets.map((pet) => pet.id)).size).toBe(200);
    for (let i = 0; i < INSTANCES; i++) {
      const listed = new Map((await listAll(instance(i).customer, '?limit=100')).pets.map((pet) => [pet.id, pet]));
      for (const pet of pets) expect(listed.get(pet.id), `instance ${i} lists pet ${pet.id}`).toEqual(pet);
      // And by id, one created on each instance.
      for (const pet of pets.slice(0, INSTANCES)) expect((await instance(i).customer.get(`/pets/${pet.id}`)).body).toEqual(pet);
    }
  });

  it('replays on another instance the pet an idempotent create made on the first', async () => {
    const body = JSON.stringify({ name: `Idempotent ${Date.now()}`, categoryId: 4 });
    const send = (i: number): Promise<HttpResult> =>
      requestWithHeaders(instance(i).customer, 'POST', '/pets', { key: CUSTOMER, raw: body, headers: { 'idempotency-key': 'pg-over-three' } });
    const first = await send(0);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    for (const i of [1, 2]) {
      const repeat = await send(i);
      expect(repeat.status, repeat.text).toBe(201);
      expect(repeat.headers.get('idempotent-replayed')).toBe('true');
      expect(repeat.text).toBe(first.text);
    }
    const { id, name } = first.body as PetBody;
    expect(await runPsql(database.url, `SELECT count(*) FROM pets WHERE name = '${name}'`)).toBe('1');
    expect((await instance(2).customer.get(`/pets/${id}`)).body).toEqual(first.body);
  });

  const keys = (...args: string[]): ReturnType<typeof runCli> =>
    runCli({ REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.prefix }, ['keys', ...args, '--store', 'postgres', '--database-url', database.url]);
  const statusOf = async (client: HttpClient, key: string): Promise<number> => (await client.get('/pets?limit=1', { key })).status;

  it('admits on every instance a key created with `petstore keys create --store postgres`, and every instance refuses it within 5 s of `keys revoke`', async () => {

    const created = await keys('create', '--plan', 'free', '--label', 'postgres process test');
    expect(created.code, created.output).toBe(0);
    const [, id = ''] = /^id:\s+(key_[0-9a-f]{16})$/m.exec(created.output) ?? [];
    const [, key = ''] = /^key:\s+(ps_[A-Za-z0-9_-]{43})$/m.exec(created.output) ?? [];
    expect(id, created.output).not.toBe('');
    expect(key, created.output).not.toBe('');
    expect(await runPsql(database.url, `SELECT label, role, revoked_at IS NULL FROM api_keys WHERE id = '${id}'`)).toBe('postgres process test|customer|t');

    for (let i = 0; i < INSTANCES; i++) {
      const admitted = await instance(i).customer.get('/pets?limit=1', { key });
      expect(admitted.status, `instance ${i}: ${admitted.text}`).toBe(200);
      expect(admitted.headers.get('x-ratelimit-limit'), 'the free plan').toBe('60');
    }

    const revoked = await keys('revoke', id);
    expect(revoked.code, revoked.output).toBe(0);
    expect(revoked.output).toContain(`Revoked ${id}`);
    const revokedAt = Date.now();
    // Every 300 ms on each of three instances: fewer than the free plan's 60 a minute, so the polls never meet a 429.
    const refusals = await Promise.all(
      instances.map(async ({ customer }, i) => {
        const before: number[] = [];
        for (let poll = 0; poll < 30 && Date.now() - revokedAt < 8_000; poll++) {
          const status = await statusOf(customer, key);
          if (status === 401) return { at: Date.now(), before };
          before.push(status);
          await sleep(300);
        }
        throw new Error(`instance ${i} still admits the revoked key after ${Date.now() - revokedAt} ms: ${before.join(' ')}`);
      }),
    );
    for (const { at, before } of refusals) {
      expect(at - revokedAt, 'refused within the 5 s an instance caches a lookup').toBeLessThanOrEqual(5_000);
      expect(new Set(before), 'admitted, from the cache, until then').toEqual(new Set(before.length === 0 ? [] : [200]));
    }
    for (let i = 0; i < INSTANCES; i++) expect(await statusOf(instance(i).customer, key), 'and refused from then on').toBe(401);
    for (let i = 0; i < INSTANCES; i++) expect(await statusOf(instance(i).customer, CUSTOMER), 'configured keys work as before').toBe(200);
  });

  it('updates a key with `petstore keys update --store postgres`: every instance answers under the new plan within 5 s; show and list tell its usage', async () => {
    const created = await keys('create', '--plan', 'pro', '--label', 'postgres update test');
    expect(created.code, created.output).toBe(0);
    const [, id = ''] = /^id:\s+(\S+)$/m.exec(created.output) ?? [];
    const [, key = ''] = /^key:\s+(\S+)$/m.exec(created.output) ?? [];
    const policyOf = async (i: number): Promise<string | null> => (await instance(i).customer.get('/pets?limit=1', { key })).headers.get('ratelimit-policy');
    const PRO = '"minute";q=300;w=60, "day";q=10000;w=86400';
    const BUSINESS = '"minute";q=1000;w=60, "day";q=100000;w=86400';
    for (let i = 0; i < INSTANCES; i++) expect(await policyOf(i)).toBe(PRO);

    const bad = await keys('update', id, '--plan', 'enterprise', '--per-minute', '10');
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('--per-day must be a whole number');
    const unknown = await keys('update', 'key_0000000000000000', '--plan', 'free');
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('no key has the id "key_0000000000000000"');

    const updated = await keys('update', id, '--plan', 'business', '--role', 'staff');
    expect(updated.code, updated.output).toBe(0);
    const updatedAt = Date.now();
    expect(await runPsql(database.url, `SELECT plan->>'name', role, updated_at IS NOT NULL FROM api_keys WHERE id = '${id}'`)).toBe('business|staff|t');
    const applied = await Promise.all(
      Array.from({ length: INSTANCES }, async (_, i) => {
        const seen: (string | null)[] = [];
        while (Date.now() - updatedAt < 8_000) {
          const policy = await policyOf(i);
          if (policy === BUSINESS) return { at: Date.now(), seen };
          seen.push(policy);
          await sleep(250);
        }
        throw new Error(`instance ${i} still answers ${seen.at(-1)} after 8 s`);
      }),
    );
    for (const { at, seen } of applied) {
      expect(at - updatedAt, 'under the new plan within the 5 s an instance caches a lookup').toBeLessThanOrEqual(5_000);
      expect(new Set(seen), 'the old plan until then').toEqual(new Set(seen.length === 0 ? [] : [PRO]));
    }

    const shown = await keys('show', id);
    expect(shown.code, shown.output).toBe(0);
    expect(shown.output).toMatch(/^plan:\s+business \(1000\/min, 100000\/day\), staff$/m);
    expect(shown.output).toMatch(/^updated:\s+\d{4}-\d\d-\d\dT/m);
    const used = Number(/^day\s+100000\s+(\d+)\s/m.exec(shown.output)?.[1]);
    // Three before the update and at least one per instance after it.
    expect(used).toBeGreaterThanOrEqual(2 * INSTANCES);
    expect(shown.output).not.toContain(key.slice(3));
    const row = (await keys('list')).output.split('\n').find((line) => line.startsWith(id)) ?? '';
    expect(row.split(/\s{2,}/).slice(1, 5)).toEqual(['active', 'business (1000/min, 100000/day)', 'staff', String(used)]);
  });
});
