import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, HttpClient, listAll, nextLink, type HttpResult, type PetBody, type RequestOptions } from '../support/http-client.js';
import { KEYS, listAllOrders, startTestPetStore, type OrderBody, type TestPetStore } from '../support/test-pet-store.js';

let store: TestPetStore;
/** A customer key no other test of this file orders with: its listing is exactly what the paging test placed. */
let pager: HttpClient;

beforeAll(async () => {
  store = await startTestPetStore();
  pager = new HttpClient(store.baseUrl, KEYS.business);
});

afterAll(() => store.close());

const RFC3339_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = 9_007_199_254_740_991;

async function newPet(status: 'available' | 'pending' | 'sold' = 'available', name = 'Orderable'): Promise<PetBody> {
  const created = await store.staff.post('/pets', { json: { name, categoryId: 1, status } });
  expect(created.status, created.text).toBe(201);
  return created.body as PetBody;
}

async function petStatus(petId: number): Promise<string> {
  const pet = await store.client.get(`/pets/${petId}`);
  expect(pet.status, pet.text).toBe(200);
  return (pet.body as PetBody).status;
}

const postOrder = (client: HttpClient, options: RequestOptions): Promise<HttpResult> => client.post('/store/orders', options);
const getOrder = (client: HttpClient, id: number | string): Promise<HttpResult> => client.get(`/store/orders/${id}`);
const cancelOrder = (client: HttpClient, id: number | string): Promise<HttpResult> => client.request('DELETE', `/store/orders/${id}`);
const patchOrder = (client: HttpClient, id: number | string, options: RequestOptions): Promise<HttpResult> =>
  client.request('PATCH', `/store/orders/${id}`, options);

async function place(client: HttpClient, petId: number): Promise<OrderBody> {
  const placed = await postOrder(client, { json: { petId } });
  expect(placed.status, placed.text).toBe(201);
  return placed.body as OrderBody;
}

async function moveTo(order: OrderBody, status: 'approved' | 'delivered'): Promise<OrderBody> {
  const moved = await patchOrder(store.staff, order.id, { json: { status } });
  expect(moved.status, moved.text).toBe(200);
  return moved.body as OrderBody;
}

/** A fresh pet ordered by the enterprise customer, then moved to `status`. */
async function orderIn(status: OrderBody['status']): Promise<OrderBody> {
  const pet = await newPet();
  let order = await place(store.client, pet.id);
  if (status === 'cancelled') {
    const cancelled = await cancelOrder(store.client, order.id);
    expect(cancelled.status, cancelled.text).toBe(200);
    order = cancelled.body as OrderBody;
  }
  if (status === 'approved' || status === 'delivered') order = await moveTo(order, 'approved');
  if (status === 'delivered') order = await moveTo(order, 'delivered');
  expect(order.status).toBe(status);
  return order;
}

/** Every order in the store, as staff see them. */
const everyOrder = async (): Promise<OrderBody[]> => (await listAllOrders(store.staff, '?limit=100')).orders;

/** Runs a request that must be refused, and checks that it stored no order and changed no pet. */
async function expectNothingChanged(petIds: readonly number[], refuse: () => Promise<void>): Promise<void> {
  const orders = await everyOrder();
  const statuses = await Promise.all(petIds.map(petStatus));
  await refuse();
  expect(await everyOrder(), 'no order was stored or changed').toEqual(orders);
  expect(await Promise.all(petIds.map(petStatus)), 'no pet changed status').toEqual(statuses);
}

/** The error body with every spelling of the id replaced, so two 404s about different ids compare equal. */
const withoutId = (result: HttpResult, id: number): unknown => JSON.parse(result.text.replaceAll(String(id), '{id}'));

describe('POST /v1/store/orders (placeOrder)', () => {
  it('answers 201 with the order placed, Location /v1/store/orders/{id} and placedAt in RFC 3339 UTC with milliseconds, and makes the pet pending', async () => {
    const pet = await newPet();
    const before = Date.now();
    const result = await postOrder(store.client, { json: { petId: pet.id } });
    const after = Date.now();
    expect(result.status, result.text).toBe(201);
    const order = result.body as OrderBody;
    expect(order).toEqual({ id: expect.any(Number), petId: pet.id, status: 'placed', placedAt: expect.any(String) });
    // The first order of the store, though pets exist: orders count from 1 with their own counter.
    expect(order.id).toBe(1);
    expect(order.placedAt).toMatch(RFC3339_UTC_MS);
    expect(new Date(order.placedAt).toISOString()).toBe(order.placedAt);
    expect(Date.parse(order.placedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(order.placedAt)).toBeLessThanOrEqual(after);
    expect(result.headers.get('location')).toBe(`/v1/store/orders/${order.id}`);

    const fetched = await store.client.get(new URL(result.headers.get('location') ?? '', store.baseUrl).href);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(order);
    expect(await petStatus(pet.id)).toBe('pending');
    expect((await listAllOrders(store.client)).orders).toContainEqual(order);
  });

  it('assigns increasing order ids', async () => {
    const first = await place(store.client, (await newPet()).id);
    const second = await place(store.client, (await newPet()).id);
    expect(second.id).toBeGreaterThan(first.id);
  });

  it('accepts a petId written 3.0-style: an integral JSON number is that integer', async () => {
    const pet = await newPet();
    const result = await postOrder(store.client, { raw: `{"petId":${pet.id}.0}` });
    expect(result.status, result.text).toBe(201);
    expect((result.body as OrderBody).petId).toBe(pet.id);
  });

  it('answers 404 not_found for an unknown pet, and stores nothing', async () => {
    await expectNothingChanged([], async () => {
      expectError(await postOrder(store.client, { json: { petId: UNKNOWN_ID } }), 404, 'not_found');
    });
  });

  it.each(['pending', 'sold'] as const)('answers 409 pet_unavailable for a pet created %s, and changes nothing', async (status) => {
    const pet = await newPet(status);
    await expectNothingChanged([pet.id], async () => {
      expectError(await postOrder(store.client, { json: { petId: pet.id } }), 409, 'pet_unavailable');
    });
  });

  it('answers 409 pet_unavailable for a pet another order holds, for any customer, and changes nothing', async () => {
    const pet = await newPet();
    await place(store.client, pet.id);
    await expectNothingChanged([pet.id], async () => {
      expectError(await postOrder(store.client, { json: { petId: pet.id } }), 409, 'pet_unavailable');
      expectError(await postOrder(store.customer2, { json: { petId: pet.id } }), 409, 'pet_unavailable');
    });
  });

  // Each body would order an available pet if the server were lenient: none may store anything.
  const badBodies: readonly [string, (petId: number) => RequestOptions, number, string, string | undefined][] = [
    ['an extra field', (petId) => ({ raw: `{"petId":${petId},"quantity":1}` }), 400, 'invalid_request', 'quantity'],
    ['an id field', (petId) => ({ raw: `{"id":1,"petId":${petId}}` }), 400, 'invalid_request', 'id'],
    ['petId as a string', (petId) => ({ raw: `{"petId":"${petId}"}` }), 400, 'invalid_request', 'petId'],
    ['petId 1.5', () => ({ raw: '{"petId":1.5}' }), 400, 'invalid_request', 'petId'],
    ['petId 0', () => ({ raw: '{"petId":0}' }), 400, 'invalid_request', 'petId'],
    ['petId -1', () => ({ raw: '{"petId":-1}' }), 400, 'invalid_request', 'petId'],
    ['petId 2^53 (9007199254740992, which JSON.parse cannot tell from 2^53+1)', () => ({ raw: '{"petId":9007199254740992}' }), 400, 'invalid_request', 'petId'],
    ['petId null', () => ({ raw: '{"petId":null}' }), 400, 'invalid_request', 'petId'],
    ['petId missing', () => ({ raw: '{}' }), 400, 'invalid_request', 'petId'],
    ['a JSON array', (petId) => ({ raw: `[${petId}]` }), 400, 'invalid_request', undefined],
    ['a body that is not JSON', (petId) => ({ raw: `{"petId":${petId}` }), 400, 'invalid_request', undefined],
    ['an empty body', () => ({ raw: '' }), 400, 'invalid_request', undefined],
    ['Content-Type text/plain', (petId) => ({ raw: `{"petId":${petId}}`, contentType: 'text/plain' }), 415, 'unsupported_media_type', undefined],
    ['no Content-Type', (petId) => ({ raw: `{"petId":${petId}}`, contentType: null }), 415, 'unsupported_media_type', undefined],
  ];

  it.each(badBodies)('refuses %s (%#) and stores nothing: no order, the pet still available', async (_name, body, status, code, field) => {
    const pet = await newPet();
    await expectNothingChanged([pet.id], async () => {
      expectError(await postOrder(store.client, body(pet.id)), status, code, field);
    });
    expect(await petStatus(pet.id)).toBe('available');
  });
});

describe('GET /v1/store/orders (listOrders)', () => {
  it("shows a customer its own orders only, and a staff key every customer's orders", async () => {
    const mine = await place(store.client, (await newPet()).id);
    const theirs = await place(store.customer2, (await newPet()).id);

    const ids = async (client: HttpClient): Promise<number[]> => (await listAllOrders(client, '?limit=100')).orders.map((order) => order.id);
    const myIds = await ids(store.client);
    const theirIds = await ids(store.customer2);
    expect(myIds).toContain(mine.id);
    expect(myIds).not.toContain(theirs.id);
    expect(theirIds).toEqual([theirs.id]);
    const all = await ids(store.staff);
    expect(all).toContain(mine.id);
    expect(all).toContain(theirs.id);
    expect(all).toEqual(expect.arrayContaining([...myIds, ...theirIds]));
  });

  describe('paging', () => {
    /** 21 orders of the paging key: 7 placed, 7 approved, 7 cancelled, interleaved. */
    let placed: OrderBody[] = [];

    beforeAll(async () => {
      placed = [];
      for (let i = 0; i < 21; i++) {
        const pet = await newPet('available', `paged ${i}`);
        let order = await place(pager, pet.id);
        if (i % 3 === 1) order = await moveTo(order, 'approved');
        if (i % 3 === 2) {
          const cancelled = await cancelOrder(pager, order.id);
          expect(cancelled.status).toBe(200);
          order = cancelled.body as OrderBody;
        }
        placed.push(order);
      }
    });

    const withStatus = (status: string): OrderBody[] => placed.filter((order) => order.status === status);

    it('lists ascending id, 20 by default, the next page in Link rel="next" keeping the default limit', async () => {
      const first = await pager.get('/store/orders');
      expect(first.status).toBe(200);
      expect(first.body).toEqual(placed.slice(0, 20));
      const next = nextLink(first);
      expect(next).toMatch(/^\/v1\/store\/orders\?/);
      expect(new URL(next ?? '', store.baseUrl).searchParams.get('limit')).toBe('20');

      const all = await listAllOrders(pager);
      expect(all.pages.map((page) => page.length)).toEqual([20, 1]);
      expect(all.orders).toEqual(placed);
    });

    it('keeps limit in every next link, and gives no next link on a last page that is exactly full', async () => {
      const all = await listAllOrders(pager, '?limit=7');
      expect(all.pages.map((page) => page.length)).toEqual([7, 7, 7]);
      expect(all.orders).toEqual(placed);
      expect(all.links).toHaveLength(2);
      for (const link of all.links) expect(new URL(link, store.baseUrl).searchParams.get('limit')).toBe('7');
    });

    it('accepts limit 1 and 100', async () => {
      const one = await listAllOrders(pager, '?limit=1');
      expect(one.pages.map((page) => page.length)).toEqual(Array(21).fill(1));
      expect(one.orders).toEqual(placed);
      const hundred = await pager.get('/store/orders?limit=100');
      expect(hundred.body).toEqual(placed);
      expect(nextLink(hundred)).toBeUndefined();
    });

    it.each(['placed', 'approved', 'cancelled'])('filters by status=%s, keeping status and limit in every next link', async (status) => {
      const all = await listAllOrders(pager, `?status=${status}&limit=3`);
      expect(all.orders).toEqual(withStatus(status));
      expect(all.pages.map((page) => page.length)).toEqual([3, 3, 1]);
      for (const link of all.links) {
        const params = new URL(link, store.baseUrl).searchParams;
        expect(params.get('status')).toBe(status);
        expect(params.get('limit')).toBe('3');
      }
      const exact = await listAllOrders(pager, `?status=${status}&limit=7`);
      expect(exact.pages.map((page) => page.length)).toEqual([7]);
    });

    it('answers an empty first page, without a next link, for a status no order has', async () => {
      const delivered = await pager.get('/store/orders?status=delivered');
      expect(delivered.status).toBe(200);
      expect(delivered.body).toEqual([]);
      expect(nextLink(delivered)).toBeUndefined();
    });

    it.each(['0', '101', '-1', '1.0', '1e1', 'x', ''])('refuses limit=%j with 400 naming limit', async (limit) => {
      expectError(await pager.get(`/store/orders?limit=${limit}`), 400, 'invalid_request', 'limit');
    });

    it.each(['sold', 'shipped', 'PLACED', ''])('refuses status=%j with 400 naming status', async (status) => {
      expectError(await pager.get(`/store/orders?status=${status}`), 400, 'invalid_request', 'status');
    });

    it('refuses an unknown query parameter with 400 naming it', async () => {
      expectError(await pager.get('/store/orders?owner=me'), 400, 'invalid_request', 'owner');
    });

    it('refuses a foreign cursor with 400 naming cursor: a cursor of /v1/pets, or garbage', async () => {
      const pets = await store.client.get('/pets?limit=1');
      const petCursor = new URL(nextLink(pets) ?? '', store.baseUrl).searchParams.get('cursor');
      expect(petCursor).toBeTruthy();
      for (const cursor of [petCursor ?? '', 'garbage', 'AAAA', '!!!', 'bzEuMQ==', 'x'.repeat(500)]) {
        expectError(await pager.get(`/store/orders?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_request', 'cursor');
      }
      // And an order cursor is foreign to the pets list.
      const orders = await pager.get('/store/orders?limit=1');
      const orderCursor = new URL(nextLink(orders) ?? '', store.baseUrl).searchParams.get('cursor') ?? '';
      expect(orderCursor).not.toBe('');
      expectError(await store.client.get(`/pets?cursor=${encodeURIComponent(orderCursor)}`), 400, 'invalid_request', 'cursor');
    });

    it('refuses a cursor used with another status than it was issued for', async () => {
      const cancelled = await pager.get('/store/orders?status=cancelled&limit=1');
      const cursor = new URL(nextLink(cancelled) ?? '', store.baseUrl).searchParams.get('cursor') ?? '';
      expect(cursor).not.toBe('');
      expectError(await pager.get(`/store/orders?status=placed&cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_request', 'cursor');
      expectError(await pager.get(`/store/orders?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_request', 'cursor');
    });

    it("never shows a customer another's orders on any page, whatever its limit", async () => {
      const pagerIds = new Set(placed.map((order) => order.id));
      for (const limit of [1, 5, 100]) {
        const mine = await listAllOrders(store.client, `?limit=${limit}`);
        for (const order of mine.orders) expect(pagerIds.has(order.id)).toBe(false);
      }
      const staff = await listAllOrders(store.staff, '?limit=7');
      expect(staff.orders.filter((order) => pagerIds.has(order.id))).toEqual(placed);
    });
  });
});

describe('GET /v1/store/orders/{orderId} (getOrder)', () => {
  it('answers 200 with an own order, and with any order to a staff key', async () => {
    const order = await place(store.client, (await newPet()).id);
    const own = await getOrder(store.client, order.id);
    expect(own.status).toBe(200);
    expect(own.body).toEqual(order);
    const staff = await getOrder(store.staff, order.id);
    expect(staff.status).toBe(200);
    expect(staff.body).toEqual(order);
  });

  it("answers 404 for an unknown order, and for another customer's order with the same body", async () => {
    const theirs = await place(store.customer2, (await newPet()).id);
    const unknown = await getOrder(store.client, UNKNOWN_ID);
    expectError(unknown, 404, 'not_found');
    const foreign = await getOrder(store.client, theirs.id);
    expectError(foreign, 404, 'not_found');
    expect(withoutId(foreign, theirs.id)).toEqual(withoutId(unknown, UNKNOWN_ID));
    expect(foreign.text).not.toContain(String(theirs.petId));
  });

  it.each(['0', 'abc', '1.0', '-1', '9007199254740992', '1'.repeat(400)])('answers 400 for the order id %j', async (id) => {
    expectError(await getOrder(store.client, id), 400, 'invalid_request');
  });
});

describe('DELETE /v1/store/orders/{orderId} (cancelOrder)', () => {
  it.each(['placed', 'approved'] as const)('cancels an order that is %s: 200 with the order cancelled, and its pet is available again', async (status) => {
    const order = await orderIn(status);
    expect(await petStatus(order.petId)).toBe('pending');
    const result = await cancelOrder(store.client, order.id);
    expect(result.status, result.text).toBe(200);
    expect(result.body).toEqual({ ...order, status: 'cancelled' });
    expect((await getOrder(store.client, order.id)).body).toEqual({ ...order, status: 'cancelled' });
    expect(await petStatus(order.petId)).toBe('available');
  });

  it('answers 200 again for a cancelled order and changes nothing, not even a pet ordered again since', async () => {
    const order = await orderIn('cancelled');
    const again = await cancelOrder(store.client, order.id);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(order);

    // The pet is held by a new order: cancelling the old one again must not release it.
    const newer = await place(store.customer2, order.petId);
    await expectNothingChanged([order.petId], async () => {
      const third = await cancelOrder(store.client, order.id);
      expect(third.status, third.text).toBe(200);
      expect(third.body).toEqual(order);
    });
    expect(await petStatus(order.petId)).toBe('pending');
    expect((await getOrder(store.customer2, newer.id)).body).toEqual(newer);
  });

  it('refuses a delivered order with 409 order_not_cancellable: it stays delivered and its pet sold', async () => {
    const order = await orderIn('delivered');
    expect(await petStatus(order.petId)).toBe('sold');
    await expectNothingChanged([order.petId], async () => {
      expectError(await cancelOrder(store.client, order.id), 409, 'order_not_cancellable');
      expectError(await cancelOrder(store.staff, order.id), 409, 'order_not_cancellable');
    });
    expect((await getOrder(store.client, order.id)).body).toEqual(order);
  });

  it("lets a staff key cancel any customer's order", async () => {
    const order = await place(store.customer2, (await newPet()).id);
    const result = await cancelOrder(store.staff, order.id);
    expect(result.status, result.text).toBe(200);
    expect(result.body).toEqual({ ...order, status: 'cancelled' });
    expect(await petStatus(order.petId)).toBe('available');
  });

  it("answers 404 to a customer cancelling another's order, like an unknown one, and changes nothing", async () => {
    const theirs = await place(store.customer2, (await newPet()).id);
    await expectNothingChanged([theirs.petId], async () => {
      const foreign = await cancelOrder(store.client, theirs.id);
      expectError(foreign, 404, 'not_found');
      const unknown = await cancelOrder(store.client, UNKNOWN_ID);
      expectError(unknown, 404, 'not_found');
      expect(withoutId(foreign, theirs.id)).toEqual(withoutId(unknown, UNKNOWN_ID));
    });
    expect((await getOrder(store.customer2, theirs.id)).body).toEqual(theirs);
  });
});

describe('PATCH /v1/store/orders/{orderId} (updateOrder)', () => {
  it('answers a customer key 403 forbidden, for its own order and for an unknown order id alike (before any lookup), and changes nothing', async () => {
    const order = await orderIn('placed');
    await expectNothingChanged([order.petId], async () => {
      expectError(await patchOrder(store.client, order.id, { json: { status: 'approved' } }), 403, 'forbidden');
      expectError(await patchOrder(store.client, UNKNOWN_ID, { json: { status: 'approved' } }), 403, 'forbidden');
      expectError(await patchOrder(store.customer2, order.id, { json: { status: 'delivered' } }), 403, 'forbidden');
      // Refused before the body is even read.
      expectError(await patchOrder(store.client, UNKNOWN_ID, { raw: 'not json' }), 403, 'forbidden');
    });
    const unknown = await patchOrder(store.client, UNKNOWN_ID, { json: { status: 'approved' } });
    const own = await patchOrder(store.client, order.id, { json: { status: 'approved' } });
    expect(withoutId(unknown, UNKNOWN_ID)).toEqual(withoutId(own, order.id));
  });

  it('lets staff approve a placed order: 200 approved, the pet still pending', async () => {
    const order = await orderIn('placed');
    const result = await patchOrder(store.staff, order.id, { json: { status: 'approved' } });
    expect(result.status, result.text).toBe(200);
    expect(result.body).toEqual({ ...order, status: 'approved' });
    expect((await getOrder(store.client, order.id)).body).toEqual({ ...order, status: 'approved' });
    expect(await petStatus(order.petId)).toBe('pending');
  });

  it('lets staff deliver an approved order: 200 delivered, and the pet becomes sold', async () => {
    const order = await orderIn('approved');
    const result = await patchOrder(store.staff, order.id, { json: { status: 'delivered' } });
    expect(result.status, result.text).toBe(200);
    expect(result.body).toEqual({ ...order, status: 'delivered' });
    expect((await getOrder(store.client, order.id)).body).toEqual({ ...order, status: 'delivered' });
    expect(await petStatus(order.petId)).toBe('sold');
  });

  it.each([
    ['placed', 'delivered'],
    ['approved', 'approved'],
    ['delivered', 'approved'],
    ['delivered', 'delivered'],
    ['cancelled', 'approved'],
    ['cancelled', 'delivered'],
  ] as const)('refuses %s -> %s with 409 invalid_transition, and changes nothing', async (from, to) => {
    const order = await orderIn(from);
    await expectNothingChanged([order.petId], async () => {
      expectError(await patchOrder(store.staff, order.id, { json: { status: to } }), 409, 'invalid_transition');
    });
    expect((await getOrder(store.client, order.id)).body).toEqual(order);
  });

  const badUpdates: readonly [string, RequestOptions, number, string, string | undefined][] = [
    ['status placed', { json: { status: 'placed' } }, 400, 'invalid_request', 'status'],
    ['status cancelled', { json: { status: 'cancelled' } }, 400, 'invalid_request', 'status'],
    ['status shipped', { json: { status: 'shipped' } }, 400, 'invalid_request', 'status'],
    ['status APPROVED', { json: { status: 'APPROVED' } }, 400, 'invalid_request', 'status'],
    ['status 1', { json: { status: 1 } }, 400, 'invalid_request', 'status'],
    ['status null', { json: { status: null } }, 400, 'invalid_request', 'status'],
    ['status missing', { json: {} }, 400, 'invalid_request', 'status'],
    ['an extra field', { json: { status: 'approved', note: 'x' } }, 400, 'invalid_request', 'note'],
    ['a body that is not JSON', { raw: '{"status":' }, 400, 'invalid_request', undefined],
    ['Content-Type text/plain', { raw: '{"status":"approved"}', contentType: 'text/plain' }, 415, 'unsupported_media_type', undefined],
  ];

  it.each(badUpdates)('refuses a staff update with %s (%#), and changes nothing', async (_name, options, status, code, field) => {
    const order = await orderIn('placed');
    await expectNothingChanged([order.petId], async () => {
      expectError(await patchOrder(store.staff, order.id, options), status, code, field);
    });
  });

  it('answers staff 404 for an unknown order', async () => {
    expectError(await patchOrder(store.staff, UNKNOWN_ID, { json: { status: 'approved' } }), 404, 'not_found');
  });
});

describe('GET /v1/store/inventory (getInventory)', () => {
  const inventory = async (client: HttpClient = store.client): Promise<Record<string, number>> => {
    const result = await client.get('/store/inventory');
    expect(result.status, result.text).toBe(200);
    return result.body as Record<string, number>;
  };
  const countsOfPetsList = async (): Promise<Record<string, number>> => {
    const counts: Record<string, number> = { available: 0, pending: 0, sold: 0 };
    for (const pet of (await listAll(store.client, '?limit=100')).pets) counts[pet.status] = (counts[pet.status] ?? 0) + 1;
    return counts;
  };

  it('counts available, pending and sold over all pets, as the pets list shows them, for any key', async () => {
    const counts = await countsOfPetsList();
    expect(Object.keys(await inventory()).sort()).toEqual(['available', 'pending', 'sold']);
    expect(await inventory()).toEqual(counts);
    expect(await inventory(store.staff)).toEqual(counts);
    expect(await inventory(store.customer2)).toEqual(counts);
  });

  it('follows the orders: placing moves a pet from available to pending, delivering to sold, cancelling back to available', async () => {
    const start = await inventory();
    const pet = await newPet();
    expect(await inventory()).toEqual({ ...start, available: (start['available'] ?? 0) + 1 });
    const order = await place(store.client, pet.id);
    const afterPlace = await inventory();
    expect(afterPlace).toEqual({ ...start, pending: (start['pending'] ?? 0) + 1 });
    expect(afterPlace).toEqual(await countsOfPetsList());

    await moveTo(await moveTo(order, 'approved'), 'delivered');
    expect(await inventory()).toEqual({ ...start, sold: (start['sold'] ?? 0) + 1 });

    const other = await place(store.client, (await newPet()).id);
    expect(await cancelOrder(store.client, other.id)).toMatchObject({ status: 200 });
    const end = await inventory();
    expect(end).toEqual({ ...start, available: (start['available'] ?? 0) + 1, sold: (start['sold'] ?? 0) + 1 });
    expect(end).toEqual(await countsOfPetsList());
  });
});

describe('authentication and quotas on the Store routes', () => {
  const ROUTES: readonly [string, string, RequestOptions][] = [
    ['POST', '/store/orders', { json: { petId: 1 } }],
    ['GET', '/store/orders', {}],
    ['GET', '/store/orders/1', {}],
    ['DELETE', '/store/orders/1', {}],
    ['PATCH', '/store/orders/1', { json: { status: 'approved' } }],
    ['GET', '/store/inventory', {}],
  ];

  it.each(ROUTES)('answers %s %s 401 unauthorized with WWW-Authenticate: Bearer, without a key or with an unknown one, and changes nothing', async (method, path, options) => {
    const orders = await everyOrder();
    for (const key of [null, 'no-such-key']) {
      const result = await store.anonymous.request(method, path, { ...options, key });
      expectError(result, 401, 'unauthorized');
      expect(result.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect(await everyOrder()).toEqual(orders);
  });

  it('carries the rate-limit fields on every answer of every Store route, refusals included', async () => {
    const order = await place(store.client, (await newPet()).id);
    const answers = [
      await postOrder(store.client, { json: { petId: order.petId } }), // 409
      await postOrder(store.client, { json: { petId: UNKNOWN_ID } }), // 404
      await postOrder(store.client, { raw: '{}' }), // 400
      await store.client.get('/store/orders'),
      await getOrder(store.client, order.id),
      await getOrder(store.customer2, order.id), // 404
      await patchOrder(store.client, order.id, { json: { status: 'approved' } }), // 403
      await patchOrder(store.staff, order.id, { json: { status: 'approved' } }),
      await cancelOrder(store.client, order.id),
      await store.client.get('/store/inventory'),
    ];
    for (const answer of answers) {
      for (const field of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit']) {
        expect(answer.headers.get(field), `${field} on ${answer.url} -> ${answer.status}`).not.toBeNull();
      }
      expect(answer.headers.get('x-ratelimit-limit'), answer.url).toBe('1000');
    }
  });

  it('answers HEAD wherever GET works on the Store routes: the same status and headers, no body', async () => {
    const order = await place(store.client, (await newPet()).id);
    for (const path of ['/store/orders?limit=1', `/store/orders/${order.id}`, '/store/inventory', `/store/orders/${UNKNOWN_ID}`]) {
      const get = await store.client.get(path);
      const head = await store.client.request('HEAD', path);
      expect(head.status, path).toBe(get.status);
      expect(head.text, path).toBe('');
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
      expect(head.headers.get('link'), path).toBe(get.headers.get('link'));
    }
  });

  it('refuses a free key with 429 rate_limited after 60 requests mixed over the Store routes, every kind of answer counted', async () => {
    const free = new HttpClient(store.baseUrl, KEYS.free);
    const heldPet = await newPet(); // created with the enterprise key: costs the free key nothing
    await place(store.client, heldPet.id);
    const freePet = await newPet();

    const requests: (() => Promise<HttpResult>)[] = [
      () => free.get('/store/orders'),
      () => free.get('/store/inventory'),
      () => getOrder(free, UNKNOWN_ID), // 404
      () => cancelOrder(free, UNKNOWN_ID), // 404
      () => patchOrder(free, UNKNOWN_ID, { json: { status: 'approved' } }), // 403
      () => postOrder(free, { json: { petId: heldPet.id } }), // 409
      () => postOrder(free, { raw: '{}' }), // 400
    ];
    const first = await postOrder(free, { json: { petId: freePet.id } });
    expect(first.status).toBe(201);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    for (let i = 1; i < 60; i++) {
      const result = await requests[i % requests.length]!();
      expect(result.status, `request ${i + 1}: ${result.url}`).not.toBe(429);
      expect(result.headers.get('x-ratelimit-limit')).toBe('60');
      expect(result.headers.get('x-ratelimit-remaining'), `request ${i + 1}`).toBe(String(59 - i));
    }
    for (const refused of [await free.get('/store/inventory'), await postOrder(free, { json: { petId: freePet.id } })]) {
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    }
  });
});

describe('roles from PETSTORE_API_KEYS', () => {
  let roles: TestPetStore;
  beforeAll(async () => {
    roles = await startTestPetStore({ extraApiKeys: ['pro-staff-1:pro:staff', 'pro-cust-1:pro:customer', 'ent-staff-2:enterprise:100:1000:staff'] });
  });
  afterAll(() => roles.close());

  it('makes a key staff with a last field staff (KEY:pro:staff, KEY:enterprise:N:M:staff), keeping its plan; customer by default or when said', async () => {
    const pet = (await roles.client.post('/pets', { json: { name: 'Roled', categoryId: 1 } })).body as PetBody;
    const order = await place(roles.client, pet.id);
    for (const [key, limit] of [['pro-staff-1', '300'], ['ent-staff-2', '100']] as const) {
      const seen = await roles.anonymous.get(`/store/orders/${order.id}`, { key });
      expect(seen.status, `${key} sees another's order`).toBe(200);
      expect(seen.headers.get('x-ratelimit-limit'), `${key} keeps its plan`).toBe(limit);
    }
    const approved = await patchOrder(roles.anonymous, order.id, { key: 'pro-staff-1', json: { status: 'approved' } });
    expect(approved.status, approved.text).toBe(200);
    const delivered = await patchOrder(roles.anonymous, order.id, { key: 'ent-staff-2', json: { status: 'delivered' } });
    expect(delivered.status, delivered.text).toBe(200);

    for (const key of ['pro-cust-1', KEYS.pro]) {
      expectError(await getOrder(new HttpClient(roles.baseUrl, key), order.id), 404, 'not_found');
      expectError(await patchOrder(roles.anonymous, order.id, { key, json: { status: 'approved' } }), 403, 'forbidden');
    }
  });
});
