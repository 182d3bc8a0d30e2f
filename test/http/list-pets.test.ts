import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, listAll, nextLink, type PetBody } from '../support/http-client.js';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

// 45 pets: 27 available, 9 pending, 9 sold, interleaved.
const STATUS_CYCLE = ['available', 'available', 'pending', 'sold', 'available'] as const;
const PET_COUNT = 45;

let store: TestPetStore;
let created: PetBody[];

beforeAll(async () => {
  store = await startTestPetStore();
  expect((await store.client.get('/pets')).body, 'an empty store lists nothing').toEqual([]);
  created = [];
  for (let i = 0; i < PET_COUNT; i++) {
    const status = STATUS_CYCLE[i % STATUS_CYCLE.length];
    // Created by staff: a customer's pet starts available.
    const result = await store.staff.post('/pets', { json: { name: `pet ${i}`, categoryId: 1 + (i % 4), status } });
    expect(result.status).toBe(201);
    created.push(result.body as PetBody);
  }
});

afterAll(() => store.close());

const ids = (pets: readonly PetBody[]): number[] => pets.map((pet) => pet.id);
const withStatus = (status: string): PetBody[] => created.filter((pet) => pet.status === status);

describe('GET /v1/pets (listPets)', () => {
  it('returns at most 20 pets when limit is absent, the first ones in ascending id order', async () => {
    const result = await store.client.get('/pets');
    expect(result.status).toBe(200);
    expect(result.body).toEqual(created.slice(0, 20));
    expect(nextLink(result)).toBeDefined();
  });

  it('returns at most `limit` pets for every limit from 1 to 100', async () => {
    for (const limit of [1, 2, 7, 44, 45, 46, 100]) {
      const result = await store.client.get(`/pets?limit=${limit}`);
      expect(result.status).toBe(200);
      expect(result.body, `limit=${limit}`).toEqual(created.slice(0, limit));
    }
  });

  it('keeps only pets of the requested status', async () => {
    for (const status of ['available', 'pending', 'sold']) {
      const result = await store.client.get(`/pets?status=${status}&limit=100`);
      expect(result.status).toBe(200);
      expect(result.body, status).toEqual(withStatus(status));
    }
  });

  it('pages through every pet exactly once in ascending id order by following rel="next"', async () => {
    for (const limit of [1, 4, 7, 20]) {
      const { pets, pages } = await listAll(store.client, `?limit=${limit}`);
      expect(ids(pets)).toEqual(ids(created));
      expect(pages.length).toBe(Math.ceil(PET_COUNT / limit));
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
    }
  });

  it('pages through the default page size when no limit is given: 20, 20, 5', async () => {
    const { pets, pages } = await listAll(store.client);
    expect(pages.map((page) => page.length)).toEqual([20, 20, 5]);
    expect(pets).toEqual(created);
  });

  it('pages through a status filter exactly once per matching pet', async () => {
    for (const [status, limit] of [['available', 5], ['sold', 4], ['pending', 2], ['available', 27]] as const) {
      const { pets } = await listAll(store.client, `?status=${status}&limit=${limit}`);
      expect(pets, `${status} by ${limit}`).toEqual(withStatus(status));
    }
  });

  it('keeps limit and status in the rel="next" link', async () => {
    const first = await store.client.get('/pets?status=available&limit=5');
    const next = nextLink(first);
    expect(next).toBeDefined();
    const url = new URL(next ?? '', store.baseUrl);
    expect(url.pathname).toBe('/v1/pets');
    expect(url.searchParams.get('limit')).toBe('5');
    expect(url.searchParams.get('status')).toBe('available');
    expect(url.searchParams.get('cursor')).toEqual(expect.any(String));
    expect(first.headers.get('link')).toMatch(/^<[^>]+>; rel="next"$/);
  });

  it('sends no Link on the last page, even when it is exactly full', async () => {
    const everything = await store.client.get(`/pets?limit=${PET_COUNT}`);
    expect((everything.body as PetBody[]).length).toBe(PET_COUNT);
    expect(everything.headers.get('link')).toBeNull();

    const pending = await store.client.get('/pets?status=pending&limit=9');
    expect(pending.body).toEqual(withStatus('pending'));
    expect(pending.headers.get('link')).toBeNull();

    const { pages } = await listAll(store.client, '?limit=15');
    expect(pages.map((page) => page.length)).toEqual([15, 15, 15]);
  });

  it('sends no Link when nothing more matches', async () => {
    const result = await store.client.get('/pets?limit=100');
    expect(result.body).toEqual(created);
    expect(result.headers.get('link')).toBeNull();
  });

  it.each(['0', '101', '-1', 'abc', '1.5', '1.0', '1e1', '', '+5', '0x10', ' 5', '1000000000000000000000'])(
    'rejects limit=%j with 400 naming limit',
    async (limit) => {
      const result = await store.client.get(`/pets?limit=${encodeURIComponent(limit)}`);
      expectError(result, 400, 'invalid_request', 'limit');
    },
  );

  it('rejects a repeated limit with 400 naming limit', async () => {
    expectError(await store.client.get('/pets?limit=5&limit=5'), 400, 'invalid_request', 'limit');
    expectError(await store.client.get('/pets?limit=5&limit=6'), 400, 'invalid_request', 'limit');
  });

  it.each(['unknown', 'AVAILABLE', 'Sold', '', 'available,sold'])('rejects status=%j with 400 naming status', async (status) => {
    const result = await store.client.get(`/pets?status=${encodeURIComponent(status)}`);
    expectError(result, 400, 'invalid_request', 'status');
  });

  it('rejects a repeated status with 400 naming status', async () => {
    expectError(await store.client.get('/pets?status=sold&status=pending'), 400, 'invalid_request', 'status');
  });

  it('rejects a cursor the service did not issue with 400 naming cursor', async () => {
    const v1Zero = Buffer.from('v1.0').toString('base64url');
    for (const cursor of ['not-a-cursor', '', '!!!', 'x'.repeat(1000), v1Zero, '%00']) {
      const result = await store.client.get(`/pets?cursor=${encodeURIComponent(cursor)}`);
      expectError(result, 400, 'invalid_request', 'cursor');
    }
  });

  it('rejects a repeated cursor with 400 naming cursor', async () => {
    const next = nextLink(await store.client.get('/pets?limit=5')) ?? '';
    const cursor = new URL(next, store.baseUrl).searchParams.get('cursor') ?? '';
    expect((await store.client.get(`/pets?limit=5&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    const repeated = await store.client.get(`/pets?limit=5&cursor=${encodeURIComponent(cursor)}&cursor=${encodeURIComponent(cursor)}`);
    expectError(repeated, 400, 'invalid_request', 'cursor');
  });

  it('rejects a cursor used with another status filter than the one it was issued for, with 400 naming cursor', async () => {
    const next = nextLink(await store.client.get('/pets?status=available&limit=5')) ?? '';
    const cursor = encodeURIComponent(new URL(next, store.baseUrl).searchParams.get('cursor') ?? '');
    expect((await store.client.get(`/pets?status=available&limit=5&cursor=${cursor}`)).status).toBe(200);
    expectError(await store.client.get(`/pets?status=sold&limit=5&cursor=${cursor}`), 400, 'invalid_request', 'cursor');
    expectError(await store.client.get(`/pets?limit=5&cursor=${cursor}`), 400, 'invalid_request', 'cursor');
  });

  it('rejects an unknown query parameter with 400 naming it', async () => {
    expectError(await store.client.get('/pets?page=2'), 400, 'invalid_request', 'page');
  });
});
