import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { MAX_ID } from '../../src/domain/pets/pet.js';
import { HttpClient } from '../support/http-client.js';
import { requestWithHeaders } from '../support/test-pet-store.js';
import { createTestDatabase, type TestDatabase } from '../support/test-postgres.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

/* Ids run out, through the API: the last id is given, then every create is a 507 in the Error format, as OpenAPI declares. */

const KEY = 'ids-key-1';
let database: TestDatabase;
let redis: TestRedis;
let store: RunningPetStore;
let client: HttpClient;

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), acquireTestRedis()]);
  store = await startPetStore({
    PETSTORE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    PETSTORE_STORE: 'postgres',
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    PETSTORE_REDIS_PREFIX: redis.prefix,
    // Records, not outages, are under test: a loaded machine must not turn a slow reply into a 503.
    PETSTORE_PG_TIMEOUT_MS: '5000',
    PETSTORE_API_KEYS: `${KEY}:enterprise:1000:50000`,
    PETSTORE_LOG_LEVEL: 'silent',
  });
  client = new HttpClient(store.baseUrl, KEY);
  const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
  try {
    // One pet id and one order id left.
    await sql.unsafe(`ALTER SEQUENCE pets_id_seq RESTART WITH ${MAX_ID}; ALTER SEQUENCE orders_id_seq RESTART WITH ${MAX_ID}`).simple();
  } finally {
    await sql.end();
  }
});

afterAll(async () => {
  await store?.close(0, 0);
  await redis?.cleanup();
  await database?.drop();
});

const post = (target: string, json: unknown, headers: Record<string, string> = {}) => requestWithHeaders(client, 'POST', target, { json, headers, key: KEY });
const EXHAUSTED = { code: 'ids_exhausted', message: expect.stringContaining(String(MAX_ID)), status: 507 };

describe('ids run out (PostgreSQL, through the API)', () => {
  it('of concurrent creates at the last id, one is created with it; the others, and every create after, are 507 ids_exhausted', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => post('/pets', { name: 'Rex', categoryId: 1 })));
    expect(answers.map(({ status }) => status).sort()).toEqual([201, 507, 507, 507]);
    expect(answers.find(({ status }) => status === 201)?.body).toMatchObject({ id: MAX_ID });
    for (const answer of answers.filter(({ status }) => status === 507)) expect(answer.body).toEqual(EXHAUSTED);
    for (const headers of [{}, { 'idempotency-key': 'after-the-end' }]) {
      const answer = await post('/pets', { name: 'Tom', categoryId: 1 }, headers);
      expect([answer.status, answer.body]).toEqual([507, EXHAUSTED]);
    }
  });

  it('orders: the last id placed, then 507 and the pet left available; the client may retry its key and get the same', async () => {
    // The pet ids are spent: order the one pet there is, then ask for it again under a key.
    const placed = await post('/store/orders', { petId: MAX_ID });
    expect([placed.status, placed.body]).toMatchObject([201, { id: MAX_ID, petId: MAX_ID }]);
    const cancelled = await requestWithHeaders(client, 'DELETE', `/store/orders/${MAX_ID}`, { key: KEY });
    expect(cancelled.status).toBe(200);
    for (const headers of [{}, { 'idempotency-key': 'order-after-the-end' }, { 'idempotency-key': 'order-after-the-end' }]) {
      const answer = await post('/store/orders', { petId: MAX_ID }, headers);
      expect([answer.status, answer.body]).toEqual([507, EXHAUSTED]);
    }
    expect((await client.request('GET', `/pets/${MAX_ID}`)).body).toMatchObject({ status: 'available' });
  });
});
