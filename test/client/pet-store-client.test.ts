import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PetStoreClient, type Pet } from '../../src/client.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { assertMatchesOpenApi } from '../support/openapi-validator.js';
import { KEYS, startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';
import { rejection } from './rejection.js';

/** A fetch that checks every answer against the served OpenAPI document and logs `METHOD path?query`. */
function checkedFetch(log: string[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : input);
    const method = init?.method ?? 'GET';
    log.push(`${method} ${url.pathname}${url.search}`);
    const text = await response.clone().text();
    const isJson = /^application\/json/i.test(response.headers.get('content-type') ?? '');
    assertMatchesOpenApi(method, url.href, { status: response.status, headers: response.headers, body: isJson && text !== '' ? (JSON.parse(text) as unknown) : text });
    return response;
  };
}

let store: TestPetStore;
const log: string[] = [];
const clientWith = (apiKey: string): PetStoreClient => new PetStoreClient({ baseUrl: store.baseUrl, apiKey, fetch: checkedFetch(log) });

beforeAll(async () => {
  store = await startTestPetStore();
});
afterAll(async () => {
  await store.close();
});

describe('PetStoreClient against a real server', () => {
  it('reads all 250 pets through pets({ limit: 100 }) exactly once, following Link rel="next" over 3 pages', async () => {
    const own = await startTestPetStore();
    try {
      const client = new PetStoreClient({ baseUrl: own.baseUrl, apiKey: KEYS.enterprise, fetch: checkedFetch(log) });
      const created: Pet[] = [];
      for (let batch = 0; batch < 10; batch++) {
        created.push(...(await Promise.all(Array.from({ length: 25 }, (_, i) => client.createPet({ name: `Pet ${batch * 25 + i}`, categoryId: 1 + (i % 3) })))));
      }
      const before = log.length;

      const read: Pet[] = [];
      for await (const pet of client.pets({ limit: 100 })) read.push(pet);

      expect(read.map((pet) => pet.id)).toEqual(created.map((pet) => pet.id).sort((a, b) => a - b));
      expect(new Set(read.map((pet) => pet.id)).size).toBe(250);
      expect(read).toEqual(expect.arrayContaining(created));
      const pages = log.slice(before);
      expect(pages).toHaveLength(3);
      expect(pages[0]).toBe('GET /v1/pets?limit=100');
      expect(pages.slice(1).every((target) => /^GET \/v1\/pets\?limit=100&cursor=[^&]+$/.test(target))).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('answers a wrong key with a PetStoreError 401 unauthorized, and a missing pet with 404 not_found, each sent once', async () => {
    const before = log.length;
    const unauthorized = await rejection(clientWith('no-such-key-1').listPets());
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized', message: expect.stringContaining('API key') });

    const notFound = await rejection(clientWith(KEYS.enterprise).getPet(999_999));
    expect(notFound).toMatchObject({ status: 404, code: 'not_found' });
    expect(log.slice(before)).toEqual(['GET /v1/pets', 'GET /v1/pets/999999']);
  });

  it('runs every operation: create, get, list, place, list and get orders, approve and deliver (staff), cancel, set a pet\'s status (staff), inventory', async () => {
    const customer = clientWith(KEYS.enterprise);
    const staff = clientWith(KEYS.staff);
    const rex = await customer.createPet({ name: ' Rex ', categoryId: 1 });
    const tom = await customer.createPet({ name: 'Tom', categoryId: 2, status: 'available' });
    expect(rex).toEqual({ id: rex.id, name: 'Rex', categoryId: 1, status: 'available' });
    expect(await customer.getPet(rex.id)).toEqual(rex);
    const listed = await customer.listPets({ status: 'available', limit: 1 });
    expect(listed.items).toHaveLength(1);
    expect(typeof listed.nextCursor).toBe('string');
    const rest = await customer.listPets({ status: 'available', limit: 100, ...(listed.nextCursor === undefined ? {} : { cursor: listed.nextCursor }) });
    expect([...listed.items, ...rest.items].map((pet) => pet.id)).toEqual(expect.arrayContaining([rex.id, tom.id]));
    expect(rest.nextCursor).toBeUndefined();

    const forRex = await customer.placeOrder({ petId: rex.id });
    expect(forRex).toMatchObject({ petId: rex.id, status: 'placed' });
    expect(Date.parse(forRex.placedAt)).not.toBeNaN();
    expect((await customer.getPet(rex.id)).status).toBe('pending');
    const forTom = await customer.placeOrder({ petId: tom.id });
    expect((await customer.listOrders({ status: 'placed' })).items).toEqual(expect.arrayContaining([forRex, forTom]));
    expect(await customer.getOrder(forRex.id)).toEqual(forRex);

    expect(await rejection(customer.updateOrder(forRex.id, { status: 'approved' }))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await staff.updateOrder(forRex.id, { status: 'approved' })).toMatchObject({ id: forRex.id, status: 'approved' });
    expect(await customer.cancelOrder(forRex.id)).toMatchObject({ id: forRex.id, status: 'cancelled' });
    expect((await customer.getPet(rex.id)).status).toBe('available');
    await staff.updateOrder(forTom.id, { status: 'approved' });
    expect(await staff.updateOrder(forTom.id, { status: 'delivered' })).toMatchObject({ status: 'delivered' });
    expect(await rejection(customer.cancelOrder(forTom.id))).toMatchObject({ status: 409, code: 'order_not_cancellable' });
    expect(await rejection(customer.placeOrder({ petId: tom.id }))).toMatchObject({ status: 409, code: 'pet_unavailable' });
    // A pet created pending, by a customer as the interface allows, and set back by staff.
    const kit = await customer.createPet({ name: 'Kit', categoryId: 3, status: 'pending' });
    expect(await rejection(customer.updatePet(kit.id, { status: 'available' }))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await staff.updatePet(kit.id, { status: 'available' })).toEqual({ ...kit, status: 'available' });
    expect(await rejection(staff.updatePet(999_999_999, { status: 'sold' }))).toMatchObject({ status: 404, code: 'not_found' });

    const inventory = await customer.inventory();
    const pets: Pet[] = [];
    for await (const pet of customer.pets({ limit: 100 })) pets.push(pet);
    expect(inventory).toEqual({
      available: pets.filter((pet) => pet.status === 'available').length,
      pending: pets.filter((pet) => pet.status === 'pending').length,
      sold: pets.filter((pet) => pet.status === 'sold').length,
    });
    expect(inventory.sold).toBeGreaterThanOrEqual(1);
  });

  it('iterates every order of the key through orders(), page after page; a staff key sees the other customer’s too', async () => {
    const customer = clientWith(KEYS.customer2);
    const placed = [];
    for (let i = 0; i < 5; i++) {
      const pet = await customer.createPet({ name: `For order ${i}`, categoryId: 1 });
      placed.push(await customer.placeOrder({ petId: pet.id }));
    }
    const before = log.length;

    const orders = [];
    for await (const order of customer.orders({ limit: 2 })) orders.push(order);

    expect(orders).toEqual(placed);
    expect(log.slice(before)).toHaveLength(3);
    const seenByStaff = [];
    for await (const order of clientWith(KEYS.staff).orders({ limit: 100, status: 'placed' })) seenByStaff.push(order.id);
    expect(seenByStaff).toEqual(expect.arrayContaining(placed.map((order) => order.id)));
  });

  it('replays a POST repeated with the same Idempotency-Key: one pet', async () => {
    const client = clientWith(KEYS.enterprise);
    const first = await client.createPet({ name: 'Once', categoryId: 1 }, { idempotencyKey: 'create-once-1' });
    const again = await client.createPet({ name: 'Once', categoryId: 1 }, { idempotencyKey: 'create-once-1' });
    expect(again).toEqual(first);
    expect(await rejection(client.createPet({ name: 'Other', categoryId: 1 }, { idempotencyKey: 'create-once-1' }))).toMatchObject({
      status: 422,
      code: 'idempotency_key_reused',
    });
  });

  it('keeps the RateLimit and RateLimit-Policy fields of the last answer', async () => {
    const client = clientWith(KEYS.business);
    expect(client.rateLimit).toBeUndefined();

    await client.inventory();
    const first = client.rateLimit;
    await client.listPets();
    const second = client.rateLimit;

    const rules = STANDARD_PLANS.business.rules;
    expect(first?.rules).toEqual(
      rules.map((rule) => ({
        name: rule.name,
        limit: rule.limit,
        windowSeconds: rule.windowMs / 1000,
        remaining: rule.limit - 1,
        resetSeconds: expect.any(Number),
      })),
    );
    expect(second?.rules.map((rule) => rule.remaining)).toEqual(rules.map((rule) => rule.limit - 2));
    expect(second?.receivedAt).toBeGreaterThanOrEqual(first?.receivedAt ?? Infinity);
    expect(first?.rules.every((rule) => rule.resetSeconds > 0 && rule.resetSeconds <= (rule.windowSeconds ?? 0) * 2)).toBe(true);
  });
});
