import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAll, type PetBody } from '../support/http-client.js';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

let store: TestPetStore;

beforeAll(async () => {
  store = await startTestPetStore();
});

afterAll(() => store.close());

const STATUSES = ['available', 'pending', 'sold'] as const;

describe('concurrent requests', () => {
  it('gives 200 concurrent creates 200 distinct ids, all listed afterwards', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.staff.post('/pets', { json: { name: `pet ${i}`, categoryId: 1 + i, status: STATUSES[i % 3] } }),
      ),
    );
    for (const result of results) expect(result.status).toBe(201);
    const created = results.map((result) => result.body as PetBody);
    const ids = created.map((pet) => pet.id);
    expect(new Set(ids).size).toBe(200);
    // Each response describes the request that made it.
    created.forEach((pet, i) => expect(pet).toMatchObject({ name: `pet ${i}`, categoryId: 1 + i, status: STATUSES[i % 3] }));
    for (const result of results) expect(result.headers.get('location')).toBe(`/v1/pets/${(result.body as PetBody).id}`);

    const byId = [...created].sort((a, b) => a.id - b.id);
    expect((await listAll(store.client, '?limit=100')).pets).toEqual(byId);
    expect((await listAll(store.client, '?limit=7')).pets).toEqual(byId);
    for (const status of STATUSES) {
      expect((await listAll(store.client, `?status=${status}&limit=30`)).pets).toEqual(byId.filter((pet) => pet.status === status));
    }
  });

  it('stores exactly the valid ones of concurrent valid and invalid creates', async () => {
    const before = (await listAll(store.client, '?limit=100')).pets;
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        i % 2 === 0
          ? store.client.post('/pets', { json: { name: `valid ${i}`, categoryId: 1 } })
          : store.client.post('/pets', { json: { name: `invalid ${i}`, categoryId: 0 } }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 201 : 400)));
    const after = (await listAll(store.client, '?limit=100')).pets;
    const added = after.slice(before.length);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(added.map((pet) => pet.name).sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `valid ${2 * i}`).sort(),
    );
  });

  it('lists consistent pages while creates run concurrently', async () => {
    const [creates, lists] = await Promise.all([
      Promise.all(Array.from({ length: 50 }, (_, i) => store.client.post('/pets', { json: { name: `late ${i}`, categoryId: 2 } }))),
      Promise.all(Array.from({ length: 20 }, () => store.client.get('/pets?limit=100&status=pending'))),
    ]);
    for (const result of creates) expect(result.status).toBe(201);
    for (const list of lists) {
      expect(list.status).toBe(200);
      const ids = (list.body as PetBody[]).map((pet) => pet.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
  });
});
