import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import { startPetStore } from '../../src/app/start-pet-store.js';
import type { PetStoreAppOptions } from '../../src/app/pet-store-app.js';
import { HttpClient, nextLink, type HttpResult, type RequestOptions } from './http-client.js';
import { assertMatchesOpenApi } from './openapi-validator.js';
import { createTestDatabase } from './test-postgres.js';
import { acquireTestRedis } from './test-redis.js';

/**
 * The keys of PETSTORE_API_KEYS below: one per plan (customers), a staff key and a second
 * customer key. Enterprise: 1000 per minute, 50 000 per day.
 */
export const KEYS = {
  free: 'free-key-1',
  pro: 'pro-key-1',
  business: 'biz-key-1',
  enterprise: 'ent-key-1',
  /** Enterprise, role staff: sees and moves every order. */
  staff: 'staff-key-1',
  /** Enterprise, a customer other than `enterprise`. */
  customer2: 'cust-key-2',
} as const;

const API_KEYS = [
  'free-key-1:free',
  'pro-key-1:pro',
  'biz-key-1:business',
  'ent-key-1:enterprise:1000:50000',
  'staff-key-1:enterprise:1000:50000:staff',
  'cust-key-2:enterprise:1000:50000',
].join(',');

export interface TestPetStore {
  readonly baseUrl: string;
  /** Authenticated with the enterprise key (a customer), whose quota no test file comes near. */
  readonly client: HttpClient;
  /** Authenticated with the staff key. */
  readonly staff: HttpClient;
  /** Authenticated with the second customer key. */
  readonly customer2: HttpClient;
  /** Sends no Authorization header unless told to. */
  readonly anonymous: HttpClient;
  close(): Promise<void>;
}

/**
 * The store the HTTP suites run on: memory, or with PETSTORE_TEST_STORE=postgres (the vitest
 * project http-on-postgres) a database and a Redis prefix of their own, or with
 * PETSTORE_TEST_STORE=pglite (http-on-pglite) a PGlite in a temporary directory.
 */
async function testStore(): Promise<{ readonly environ: Readonly<Record<string, string>>; readonly overrides: PetStoreAppOptions; cleanup(): Promise<void> }> {
  if (process.env['PETSTORE_TEST_STORE'] === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-http-pglite-'));
    return {
      environ: { PETSTORE_STORE: 'pglite', PETSTORE_DATA_DIR: dir },
      overrides: { storeTimeoutMs: 5_000 },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (process.env['PETSTORE_TEST_STORE'] !== 'postgres') return { environ: {}, overrides: {}, cleanup: async () => {} };
  const database = await createTestDatabase();
  const redis = await acquireTestRedis();
  return {
    // These suites test the records, not outages: a loaded machine must not turn a slow reply into a 503.
    environ: { PETSTORE_STORE: 'postgres', DATABASE_URL: database.url, REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.prefix },
    overrides: { storeTimeoutMs: 5_000 },
    cleanup: async () => {
      await database.drop();
      await redis.cleanup();
    },
  };
}

/**
 * A real server on 127.0.0.1 with a free port and its own stores (see testStore); `extraApiKeys`
 * (PETSTORE_API_KEYS entries) are configured beside KEYS.
 */
export async function startTestPetStore(options: { clock?: Clock; extraApiKeys?: readonly string[] } = {}): Promise<TestPetStore> {
  const { extraApiKeys = [], ...startOptions } = options;
  const stores = await testStore();
  const store = await startPetStore(
    {
      PETSTORE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_API_KEYS: [API_KEYS, ...extraApiKeys].join(','),
      ...stores.environ,
    },
    { ...startOptions, ...stores.overrides },
  ).catch(async (error: unknown) => {
    await stores.cleanup();
    throw error;
  });
  return {
    baseUrl: store.baseUrl,
    client: new HttpClient(store.baseUrl, KEYS.enterprise),
    staff: new HttpClient(store.baseUrl, KEYS.staff),
    customer2: new HttpClient(store.baseUrl, KEYS.customer2),
    anonymous: new HttpClient(store.baseUrl),
    close: async () => {
      await store.close();
      await stores.cleanup();
    },
  };
}

export interface HeaderRequestOptions extends Omit<RequestOptions, 'authorization' | 'raw' | 'key'> {
  /** Sent byte for byte, as application/json unless `contentType` says otherwise. */
  readonly raw?: string;
  /** Extra request headers, e.g. `{ 'idempotency-key': 'k1' }`. */
  readonly headers?: Readonly<Record<string, string>>;
}

const encoder = new TextEncoder();

/**
 * Like `client.request`, with extra request headers (HttpClient has no way to send them) and
 * the key always given (`null`: no Authorization): the response is checked against the
 * OpenAPI document all the same. `client` gives the base URL.
 */
export async function requestWithHeaders(
  client: HttpClient,
  method: string,
  target: string,
  options: HeaderRequestOptions & { readonly key: string | null },
): Promise<HttpResult> {
  const url = client.url(target);
  const headers = new Headers(options.headers ?? {});
  const key = options.key;
  if (key !== null) headers.set('authorization', `Bearer ${key}`);
  let body: Uint8Array | undefined;
  if (options.json !== undefined) body = encoder.encode(JSON.stringify(options.json));
  else if (options.raw !== undefined) body = encoder.encode(options.raw);
  const contentType = options.contentType === undefined ? (body === undefined ? null : 'application/json') : options.contentType;
  if (contentType !== null) headers.set('content-type', contentType);
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const isJson = /^application\/json\s*(;|$)/i.test(response.headers.get('content-type') ?? '');
  const result: HttpResult = { status: response.status, headers: response.headers, body: isJson && text !== '' ? (JSON.parse(text) as unknown) : text, text, url };
  assertMatchesOpenApi(method, url, result);
  return result;
}

export interface OrderBody {
  readonly id: number;
  readonly petId: number;
  readonly status: 'placed' | 'approved' | 'delivered' | 'cancelled';
  readonly placedAt: string;
}

/**
 * Follows rel="next" of `/store/orders` from the first page to the last, as `client` sees them;
 * every page reached through rel="next" must be non-empty, ids ascend and none repeats.
 * Bounded: at most `maxPages` pages.
 */
export async function listAllOrders(client: HttpClient, query = '', maxPages = 200): Promise<{ orders: OrderBody[]; pages: OrderBody[][]; links: string[] }> {
  const pages: OrderBody[][] = [];
  const links: string[] = [];
  let target: string | undefined = client.url(`/store/orders${query}`);
  while (target !== undefined) {
    expect(pages.length, `at most ${maxPages} pages`).toBeLessThan(maxPages);
    const page = await client.get(target);
    expect(page.status, page.text).toBe(200);
    const orders = page.body as OrderBody[];
    if (pages.length > 0) expect(orders.length, `a page reached through rel="next" is never empty (${target})`).toBeGreaterThan(0);
    const seen = [...pages.flat(), ...orders].map((order) => order.id);
    expect(seen, `ids ascend across pages (page ${pages.length + 1}: ${target})`).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size, `no order is listed twice (page ${pages.length + 1}: ${target})`).toBe(seen.length);
    pages.push(orders);
    const next = nextLink(page);
    if (next !== undefined) links.push(next);
    target = next === undefined ? undefined : new URL(next, client.baseUrl).href;
  }
  return { orders: pages.flat(), pages, links };
}
