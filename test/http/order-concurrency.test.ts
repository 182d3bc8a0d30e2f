import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAll, type HttpClient, type PetBody, outcomes } from '../support/http-client.js';
import { KEYS, listAllOrders, requestWithHeaders, startTestPetStore, type OrderBody, type TestPetStore } from '../support/test-pet-store.js';

let store: TestPetStore;

beforeAll(async () => {
  store = await startTestPetStore();
});

afterAll(() => store.close());


async function newPet(name: string): Promise<PetBody> {
  const created = await store.client.post('/pets', { json: { name, categoryId: 1 } });
  expect(created.status, created.text).toBe(201);
  return created.body as PetBody;
}

const ordersOfPet = async (petId: number): Promise<OrderBody[]> =>
  (await listAllOrders(store.staff, '?limit=100')).orders.filter((order) => order.petId === petId);

/** Two customers and a staff key, each ordering for itself. */
const customers = (): readonly HttpClient[] => [store.client, store.customer2, store.staff];

describe('concurrent orders on one instance', () => {
  it('gives exactly one 201 to 30 concurrent orders for one pet from several keys; the other 29 are 409 pet_unavailable', async () => {
    const pet = await newPet('Contested');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => customers()[i % customers().length]!.post('/store/orders', { json: { petId: pet.id } })),
    );
    expect(outcomes(results)).toEqual({ '201': 1, '409 pet_unavailable': 29 });
    const winner = results.find((result) => result.status === 201)?.body as OrderBody;
    expect(await ordersOfPet(pet.id)).toEqual([winner]);
    expect(((await store.client.get(`/pets/${pet.id}`)).body as PetBody).status).toBe('pending');
  });

  it('gives exactly one 201 per pet to concurrent orders for several pets at once', async () => {
    const pets = await Promise.all(Array.from({ length: 5 }, (_, i) => newPet(`Contested ${i}`)));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.client.post('/store/orders', { json: { petId: pets[i % 5]!.id } })),
    );
    expect(outcomes(results)).toEqual({ '201': 5, '409 pet_unavailable': 45 });
    for (const pet of pets) expect(await ordersOfPet(pet.id)).toHaveLength(1);
  });

  it('lets exactly one of 10 concurrent approvals of one order succeed; the others are 409 invalid_transition', async () => {
    const pet = await newPet('Approved once');
    const placed = await store.client.post('/store/orders', { json: { petId: pet.id } });
    expect(placed.status).toBe(201);
    const id = (placed.body as OrderBody).id;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.staff.request('PATCH', `/store/orders/${id}`, { json: { status: 'approved' } })),
    );
    expect(outcomes(results)).toEqual({ '200': 1, '409 invalid_transition': 9 });
  });

  it('answers 200 cancelled to each of 10 concurrent cancellations of one order, and the pet is available once', async () => {
    const pet = await newPet('Cancelled once');
    const placed = await store.client.post('/store/orders', { json: { petId: pet.id } });
    const order = placed.body as OrderBody;
    const results = await Promise.all(Array.from({ length: 10 }, () => store.client.request('DELETE', `/store/orders/${order.id}`)));
    expect(outcomes(results)).toEqual({ '200': 10 });
    for (const result of results) expect(result.body).toEqual({ ...order, status: 'cancelled' });
    expect(((await store.client.get(`/pets/${pet.id}`)).body as PetBody).status).toBe('available');
  });

  it('never leaves a delivered order cancelled or a cancelled one delivered when delivery and cancellation race', async () => {
    const pet = await newPet('Raced');
    const placed = await store.client.post('/store/orders', { json: { petId: pet.id } });
    const id = (placed.body as OrderBody).id;
    expect((await store.staff.request('PATCH', `/store/orders/${id}`, { json: { status: 'approved' } })).status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0 ? store.staff.request('PATCH', `/store/orders/${id}`, { json: { status: 'delivered' } }) : store.client.request('DELETE', `/store/orders/${id}`),
      ),
    );
    const final = (await store.client.get(`/store/orders/${id}`)).body as OrderBody;
    const petStatus = ((await store.client.get(`/pets/${pet.id}`)).body as PetBody).status;
    const counts = outcomes(results);
    if (final.status === 'delivered') {
      expect(counts).toEqual({ '200': 1, '409 invalid_transition': 4, '409 order_not_cancellable': 5 });
      expect(petStatus).toBe('sold');
    } else {
      expect(final.status).toBe('cancelled');
      expect(counts).toEqual({ '200': 5, '409 invalid_transition': 5 });
      expect(petStatus).toBe('available');
    }
  });
});

describe('concurrent repeats of one Idempotency-Key', () => {
  it('creates exactly one pet for 20 concurrent POST /v1/pets with one key and body: the others replay it or answer 409 idempotency_conflict', async () => {
    const name = `Idempotent ${Date.now()}`;
    const body = JSON.stringify({ name, categoryId: 4 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        requestWithHeaders(store.client, 'POST', '/pets', { key: KEYS.enterprise, raw: body, headers: { 'idempotency-key': 'concurrent-pet' } }),
      ),
    );
    const created = results.filter((result) => result.status === 201);
    const original = created.filter((result) => result.headers.get('idempotent-replayed') === null);
    expect(original).toHaveLength(1);
    for (const replay of created) {
      expect(replay.text).toBe(original[0]?.text);
      expect(replay.headers.get('location')).toBe(original[0]?.headers.get('location'));
    }
    expect(created.length + (outcomes(results)['409 idempotency_conflict'] ?? 0)).toBe(20);
    expect(created.filter((result) => result.headers.get('idempotent-replayed') === 'true')).toHaveLength(created.length - 1);

    const named = (await listAll(store.client, '?limit=100')).pets.filter((pet) => pet.name === name);
    expect(named).toEqual([original[0]?.body]);
  });

  it('places exactly one order for 20 concurrent POST /v1/store/orders with one key and body: the others replay it or answer 409 idempotency_conflict', async () => {
    const pet = await newPet('Idempotent order');
    const body = JSON.stringify({ petId: pet.id });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        requestWithHeaders(store.client, 'POST', '/store/orders', { key: KEYS.enterprise, raw: body, headers: { 'idempotency-key': 'concurrent-order' } }),
      ),
    );
    const created = results.filter((result) => result.status === 201);
    const original = created.filter((result) => result.headers.get('idempotent-replayed') === null);
    expect(original).toHaveLength(1);
    for (const replay of created) expect(replay.text).toBe(original[0]?.text);
    // Never a 409 pet_unavailable: a repeat of the key never runs a second order.
    expect(created.length + (outcomes(results)['409 idempotency_conflict'] ?? 0), JSON.stringify(outcomes(results))).toBe(20);
    expect(await ordersOfPet(pet.id)).toEqual([original[0]?.body]);
  });

  it('creates one pet per API key when several keys repeat one Idempotency-Key concurrently', async () => {
    const name = `Per key ${Date.now()}`;
    const body = JSON.stringify({ name, categoryId: 5 });
    const keys = [KEYS.enterprise, KEYS.customer2, KEYS.staff];
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        requestWithHeaders(store.client, 'POST', '/pets', { key: keys[i % 3]!, raw: body, headers: { 'idempotency-key': 'shared-name' } }),
      ),
    );
    for (const result of results) expect([201, 409]).toContain(result.status);
    const named = (await listAll(store.client, '?limit=100')).pets.filter((pet) => pet.name === name);
    expect(named).toHaveLength(3);
  });
});
