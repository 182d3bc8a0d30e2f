import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, listAll, type HttpClient, type HttpResult, type PetBody, type RequestOptions } from '../support/http-client.js';
import { startTestPetStore, type OrderBody, type TestPetStore } from '../support/test-pet-store.js';

let store: TestPetStore;

beforeAll(async () => {
  store = await startTestPetStore();
});

afterAll(() => store.close());

const UNKNOWN_ID = 9_007_199_254_740_991;
const STATUSES = ['available', 'pending', 'sold'] as const;

const patchPet = (client: HttpClient, id: number | string, options: RequestOptions): Promise<HttpResult> => client.request('PATCH', `/pets/${id}`, options);

async function newPet(client: HttpClient, status: (typeof STATUSES)[number]): Promise<PetBody> {
  const created = await client.post('/pets', { json: { name: 'Patched', categoryId: 4, status } });
  expect(created.status, created.text).toBe(201);
  return created.body as PetBody;
}

const petNow = async (id: number): Promise<PetBody> => (await store.client.get(`/pets/${id}`)).body as PetBody;

describe('PATCH /v1/pets/{petId} (updatePet)', () => {
  it.each(STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const)))(
    'lets a staff key move a pet from %s to %s: 200 with the pet, which every read then shows',
    async (from, to) => {
      const pet = await newPet(store.client, from);
      const result = await patchPet(store.staff, pet.id, { json: { status: to } });
      expect(result.status, result.text).toBe(200);
      expect(result.body).toEqual({ ...pet, status: to });
      expect(result.headers.get('deprecation'), 'only getPet is deprecated').toBeNull();
      expect(await petNow(pet.id)).toEqual({ ...pet, status: to });
      expect((await listAll(store.client, `?status=${to}&limit=100`)).pets).toContainEqual({ ...pet, status: to });
      if (from !== to) expect((await listAll(store.client, `?status=${from}&limit=100`)).pets.map(({ id }) => id)).not.toContain(pet.id);
    },
  );

  it('moves the inventory with the pet', async () => {
    const pet = await newPet(store.client, 'pending');
    const before = (await store.client.get('/store/inventory')).body as Record<string, number>;
    expect((await patchPet(store.staff, pet.id, { json: { status: 'sold' } })).status).toBe(200);
    const after = (await store.client.get('/store/inventory')).body as Record<string, number>;
    expect(after).toEqual({ ...before, pending: before['pending']! - 1, sold: before['sold']! + 1 });
  });

  it('gives a pet a customer created pending a way back: staff make it available, and a customer can order it', async () => {
    const pet = await newPet(store.client, 'pending');
    expectError(await store.client.post('/store/orders', { json: { petId: pet.id } }), 409, 'pet_unavailable');
    expect((await patchPet(store.staff, pet.id, { json: { status: 'available' } })).status).toBe(200);
    const order = await store.customer2.post('/store/orders', { json: { petId: pet.id } });
    expect(order.status, order.text).toBe(201);
    expect((await petNow(pet.id)).status).toBe('pending');
  });

  it("leaves a pet's orders as they are; their later moves set the pet's status as orders always do", async () => {
    const pet = await newPet(store.client, 'available');
    const order = (await store.client.post('/store/orders', { json: { petId: pet.id } })).body as OrderBody;
    expect((await patchPet(store.staff, pet.id, { json: { status: 'sold' } })).body).toEqual({ ...pet, status: 'sold' });
    expect((await store.client.get(`/store/orders/${order.id}`)).body).toEqual(order);
    const approved = await store.staff.request('PATCH', `/store/orders/${order.id}`, { json: { status: 'approved' } });
    expect(approved.status, approved.text).toBe(200);
    expect((await petNow(pet.id)).status).toBe('pending');
    const cancelled = await store.client.request('DELETE', `/store/orders/${order.id}`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect((await petNow(pet.id)).status).toBe('available');
  });

  it('answers a customer key 403 forbidden before anything is looked up or read, for a known pet and an unknown one alike, and changes nothing', async () => {
    const pet = await newPet(store.client, 'pending');
    const own = await patchPet(store.client, pet.id, { json: { status: 'available' } });
    expectError(own, 403, 'forbidden');
    const unknown = await patchPet(store.customer2, UNKNOWN_ID, { json: { status: 'available' } });
    expectError(unknown, 403, 'forbidden');
    expect(unknown.body).toEqual(own.body);
    expectError(await patchPet(store.client, 'x', { raw: 'not json' }), 403, 'forbidden');
    expect(await petNow(pet.id)).toEqual(pet);
  });

  it.each<[string, RequestOptions, string]>([
    ['an unknown status', { json: { status: 'lost' } }, 'status'],
    ['a status of another type', { json: { status: 1 } }, 'status'],
    ['no status', { json: {} }, 'status'],
    ['another field beside it', { json: { status: 'sold', name: 'Rex' } }, 'name'],
    ['an order status', { json: { status: 'approved' } }, 'status'],
    ['a body that is not an object', { json: ['sold'] }, 'body'],
    ['malformed JSON', { raw: '{"status":' }, 'JSON'],
  ])('answers staff sending %s 400 invalid_request, and changes nothing', async (_what, options, field) => {
    const pet = await newPet(store.client, 'pending');
    expectError(await patchPet(store.staff, pet.id, options), 400, 'invalid_request', field);
    expect(await petNow(pet.id)).toEqual(pet);
  });

  it('answers a petId that is not an id 400, and an unknown one 404', async () => {
    for (const id of ['0', 'abc', '1.0', '9007199254740992']) expectError(await patchPet(store.staff, id, { json: { status: 'sold' } }), 400, 'invalid_request', 'petId');
    expectError(await patchPet(store.staff, UNKNOWN_ID, { json: { status: 'sold' } }), 404, 'not_found');
  });

  it('answers without a valid key 401, and lists PATCH among the methods of /pets/{petId}', async () => {
    for (const key of [null, 'no-such-key']) expectError(await patchPet(store.anonymous, 1, { key, json: { status: 'sold' } }), 401, 'unauthorized');
    const other = await store.staff.request('DELETE', '/pets/1');
    expectError(other, 405, 'method_not_allowed');
    expect(other.headers.get('allow')).toBe('GET, HEAD, PATCH');
  });

});
