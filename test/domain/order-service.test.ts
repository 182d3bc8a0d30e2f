import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryIdempotencyRecords } from '../../src/adapters/memory/memory-idempotency-records.js';
import { MemoryOrderRepository } from '../../src/adapters/memory/memory-order-repository.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import type { Caller } from '../../src/domain/access/caller.js';
import type { DomainError, DomainErrorCode } from '../../src/domain/errors.js';
import type { Order } from '../../src/domain/orders/order.js';
import { orderCursors } from '../../src/domain/orders/order-cursor.js';
import { OrderService, type ListOrdersQuery, type OrderPage } from '../../src/domain/orders/order-service.js';
import { MAX_ID, type PetStatus } from '../../src/domain/pets/pet.js';
import { PetCatalog } from '../../src/domain/pets/pet-catalog.js';
import { petCursors } from '../../src/domain/pets/pet-cursor.js';
import type { Result } from '../../src/domain/result.js';
import type { OrderRepository } from '../../src/ports/order-repository.js';
import { ManualClock } from '../support/manual-clock.js';
import { untyped } from '../support/untyped.js';
import { runs } from '../support/property-runs.js';

const START = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
const alice: Caller = { id: 'alice', role: 'customer' };
const bob: Caller = { id: 'bob', role: 'customer' };
const staff: Caller = { id: 'staff-1', role: 'staff' };

/** The real memory adapters wired as the app wires them, with pets of the given statuses (ids 1..n). */
const storeWith = async (statuses: readonly PetStatus[] = ['available', 'available', 'available']) => {
  const clock = new ManualClock(START);
  const records = new MemoryIdempotencyRecords(clock);
  const petRepository = new MemoryPetRepository(records);
  const orderRepository = new MemoryOrderRepository(petRepository, records);
  const catalog = new PetCatalog(petRepository);
  for (const [index, status] of statuses.entries()) await catalog.create({ name: `pet ${index + 1}`, categoryId: 1, status });
  const service = new OrderService(orderRepository, clock);
  const petStatus = async (id: number): Promise<PetStatus | undefined> => (await petRepository.get(id))?.status;
  return { clock, catalog, petRepository, orderRepository, service, petStatus };
};

const value = <T>(result: Result<T, DomainError>): T => {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.value;
};
const errorOf = <T>(result: Result<T, DomainError>): DomainError => {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
};
const codeOf = <T>(result: Result<T, DomainError>): DomainErrorCode => errorOf(result).code;

const place = async (service: OrderService, caller: Caller, petId: number): Promise<Order> => value(await service.place(caller, { petId }));
const ids = (page: OrderPage): number[] => page.orders.map((order) => order.id);

/** Every method throws: proves a use case answered before touching the store. */
const untouchable: OrderRepository = {
  place: () => Promise.reject(new Error('place must not be called')),
  get: () => Promise.reject(new Error('get must not be called')),
  page: () => Promise.reject(new Error('page must not be called')),
  transition: () => Promise.reject(new Error('transition must not be called')),
};

describe('OrderService.place', () => {
  it('places an order for an available pet: placed, owned by the caller, and the pet becomes pending', async () => {
    const { service, petStatus } = await storeWith();
    expect(await service.place(alice, { petId: 2 })).toEqual({
      ok: true,
      value: { id: 1, petId: 2, status: 'placed', placedAt: new Date(START).toISOString(), ownerId: 'alice' },
    });
    expect(await petStatus(2)).toBe('pending');
    expect(await petStatus(1)).toBe('available');
  });

  it('gives orders ids 1, 2, 3... in the order they are placed', async () => {
    const { service } = await storeWith();
    expect((await place(service, bob, 3)).id).toBe(1);
    expect((await place(service, alice, 1)).id).toBe(2);
    expect((await place(service, staff, 2)).id).toBe(3);
  });

  it('placedAt is the clock time at placing, as toISOString', async () => {
    const { service, clock } = await storeWith(Array.from({ length: 3 }, () => 'available'));
    expect((await place(service, alice, 1)).placedAt).toBe('2030-01-02T03:04:05.678Z');
    clock.advance(1);
    expect((await place(service, alice, 2)).placedAt).toBe('2030-01-02T03:04:05.679Z');
    clock.set(0);
    expect((await place(service, alice, 3)).placedAt).toBe('1970-01-01T00:00:00.000Z');
  });

  it('placedAt is new Date(clock.now()).toISOString() for any time from 1970 to 9999, in RFC 3339 UTC with milliseconds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), async (now) => {
        const { service, clock } = await storeWith(['available']);
        clock.set(now);
        const { placedAt } = await place(service, alice, 1);
        expect(placedAt).toBe(new Date(now).toISOString());
        expect(placedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(Date.parse(placedAt)).toBe(now);
      }),
      { numRuns: runs(300) },
    );
  });

  it('an unknown pet is not_found', async () => {
    const { service } = await storeWith(['available']);
    expect(errorOf(await service.place(alice, { petId: 2 }))).toEqual({ code: 'not_found', message: 'pet 2 not found' });
    expect(codeOf(await service.place(alice, { petId: MAX_ID }))).toBe('not_found');
  });

  it.each<PetStatus>(['pending', 'sold'])('a %s pet is pet_unavailable, and stays as it was', async (status) => {
    const { service, petStatus, orderRepository } = await storeWith([status]);
    expect(errorOf(await service.place(alice, { petId: 1 }))).toEqual({ code: 'pet_unavailable', message: 'pet 1 is not available' });
    expect(await petStatus(1)).toBe(status);
    expect(await orderRepository.page({ afterId: 0, limit: 10 })).toEqual([]);
  });

  it('a pet with a live order is pet_unavailable to everyone, its owner and staff included', async () => {
    const { service } = await storeWith(['available']);
    await place(service, alice, 1);
    for (const caller of [alice, bob, staff]) expect(codeOf(await service.place(caller, { petId: 1 }))).toBe('pet_unavailable');
  });

  it('a pet whose order was cancelled can be ordered again; a delivered one cannot', async () => {
    const { service, petStatus } = await storeWith(['available', 'available']);
    const first = await place(service, alice, 1);
    value(await service.cancel(alice, first.id));
    expect((await place(service, bob, 1)).id).toBe(2);
    const other = await place(service, alice, 2);
    value(await service.update(staff, other.id, { status: 'approved' }));
    value(await service.update(staff, other.id, { status: 'delivered' }));
    expect(await petStatus(2)).toBe('sold');
    expect(codeOf(await service.place(bob, { petId: 2 }))).toBe('pet_unavailable');
  });

  it.each([
    ['a string petId', { petId: '1' }, 'petId'],
    ['a fractional petId', { petId: 1.5 }, 'petId'],
    ['petId 0', { petId: 0 }, 'petId'],
    ['an extra field', { petId: 1, quantity: 2 }, 'quantity'],
    ['no body', null, 'body'],
    ['an array', [{ petId: 1 }], 'body'],
  ])('%s is a 400 answered before the store is touched', async (_, body, field) => {
    const service = new OrderService(untouchable, new ManualClock(START));
    expect(errorOf(await service.place(alice, untyped(body)))).toMatchObject({ code: 'invalid_request', field });
  });
});

describe('OrderService.get', () => {
  it('a customer sees its own order', async () => {
    const { service } = await storeWith();
    const order = await place(service, alice, 1);
    expect(await service.get(alice, order.id)).toEqual({ ok: true, value: order });
    expect(await service.get(alice, String(order.id))).toEqual({ ok: true, value: order });
  });

  it("another customer's order is not_found, answered exactly as an order that does not exist", async () => {
    const { service } = await storeWith();
    const order = await place(service, alice, 1);
    const hidden = errorOf(await service.get(bob, order.id));
    expect(hidden).toEqual({ code: 'not_found', message: `order ${order.id} not found` });
    // Order 1 exists and order 2 does not: bob cannot tell which is which.
    expect(errorOf(await service.get(bob, 2))).toEqual({ code: 'not_found', message: 'order 2 not found' });
  });

  it('staff see every order', async () => {
    const { service } = await storeWith();
    const a = await place(service, alice, 1);
    const b = await place(service, bob, 2);
    expect(await service.get(staff, a.id)).toEqual({ ok: true, value: a });
    expect(await service.get(staff, b.id)).toEqual({ ok: true, value: b });
    expect(codeOf(await service.get(staff, 3))).toBe('not_found');
  });

  it("a staff key's own orders are hidden from customers like any other", async () => {
    const { service } = await storeWith();
    const order = await place(service, staff, 1);
    expect(codeOf(await service.get(alice, order.id))).toBe('not_found');
  });

  it.each([0, -1, 1.5, 'abc', '1e2', '', 2 ** 53, null])('orderId %j is a 400 naming orderId, before any lookup', async (orderId) => {
    const service = new OrderService(untouchable, new ManualClock(START));
    expect(errorOf(await service.get(staff, untyped(orderId)))).toMatchObject({ code: 'invalid_request', field: 'orderId' });
  });
});

describe('OrderService.list', () => {
  const listed = async (service: OrderService, caller: Caller, query: ListOrdersQuery = {}): Promise<OrderPage> =>
    value(await service.list(caller, query));

  it('a customer lists only its own orders; staff list all of them, ascending id', async () => {
    const { service } = await storeWith(['available', 'available', 'available', 'available']);
    const a1 = await place(service, alice, 1);
    const b2 = await place(service, bob, 2);
    const a3 = await place(service, alice, 3);
    const s4 = await place(service, staff, 4);
    expect(await listed(service, alice)).toEqual({ orders: [a1, a3] });
    expect(await listed(service, bob)).toEqual({ orders: [b2] });
    expect(await listed(service, staff)).toEqual({ orders: [a1, b2, a3, s4] });
    expect(await listed(service, { id: 'carol', role: 'customer' })).toEqual({ orders: [] });
  });

  it("a customer's pages, followed by their cursors, hold its orders only, each once", async () => {
    const { service } = await storeWith(Array.from({ length: 12 }, () => 'available'));
    const mine: number[] = [];
    for (let petId = 1; petId <= 12; petId += 1) {
      const order = await place(service, petId % 3 === 0 ? alice : bob, petId);
      if (petId % 3 === 0) mine.push(order.id);
    }
    const seen: number[] = [];
    let page = await listed(service, alice, { limit: 1 });
    seen.push(...ids(page));
    while (page.next !== undefined) {
      expect(orderCursors.decode(page.next.cursor).ok).toBe(true);
      page = await listed(service, alice, { limit: page.next.limit, cursor: page.next.cursor });
      expect(page.orders.length).toBeGreaterThan(0);
      seen.push(...ids(page));
    }
    expect(seen).toEqual(mine);
  });

  it('filters by status, for a customer and for staff', async () => {
    const { service } = await storeWith(['available', 'available', 'available']);
    const a1 = await place(service, alice, 1);
    const b2 = await place(service, bob, 2);
    const a3 = await place(service, alice, 3);
    value(await service.cancel(alice, a1.id));
    value(await service.update(staff, b2.id, { status: 'approved' }));
    expect(ids(await listed(service, alice, { status: 'placed' }))).toEqual([a3.id]);
    expect(ids(await listed(service, alice, { status: 'cancelled' }))).toEqual([a1.id]);
    expect(ids(await listed(service, alice, { status: 'approved' }))).toEqual([]);
    expect(ids(await listed(service, staff, { status: 'approved' }))).toEqual([b2.id]);
    expect(ids(await listed(service, staff, { status: 'delivered' }))).toEqual([]);
  });

  it('announces next with an order cursor carrying the filter', async () => {
    const { service } = await storeWith(['available', 'available', 'available']);
    for (const petId of [1, 2, 3]) await place(service, alice, petId);
    expect((await listed(service, alice, { limit: 2, status: 'placed' })).next).toEqual({
      cursor: orderCursors.encode({ afterId: 2, status: 'placed' }),
      limit: 2,
      status: 'placed',
    });
    expect((await listed(service, alice, { limit: 3 })).next).toBeUndefined();
  });

  it('a pet cursor is a 400 for orders, answered before the store is touched', async () => {
    const service = new OrderService(untouchable, new ManualClock(START));
    expect(errorOf(await service.list(alice, { cursor: petCursors.encode({ afterId: 1 }) }))).toEqual({
      code: 'invalid_request',
      field: 'cursor',
      message: 'cursor is not one issued by this service',
    });
  });

  it('an order cursor is a 400 for pets', async () => {
    const { catalog } = await storeWith(['available']);
    expect(errorOf(await catalog.list({ cursor: orderCursors.encode({ afterId: 1 }) }))).toMatchObject({
      code: 'invalid_request',
      field: 'cursor',
    });
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ status: 'pending' }, 'status'],
    [{ status: 'sold' }, 'status'],
    [{ cursor: orderCursors.encode({ afterId: 1, status: 'placed' }) }, 'cursor'],
  ])('%j is a 400 naming %s', async (query, field) => {
    const service = new OrderService(untouchable, new ManualClock(START));
    expect(errorOf(await service.list(staff, untyped(query)))).toMatchObject({ code: 'invalid_request', field });
  });
});

describe('OrderService.cancel', () => {
  it.each(['placed', 'approved'] as const)('cancels a %s order and makes its pet available again', async (status) => {
    const { service, petStatus } = await storeWith(['available']);
    const order = await place(service, alice, 1);
    if (status === 'approved') value(await service.update(staff, order.id, { status: 'approved' }));
    expect(await service.cancel(alice, order.id)).toEqual({ ok: true, value: { ...order, status: 'cancelled' } });
    expect(await petStatus(1)).toBe('available');
  });

  it('cancelling a cancelled order is ok and changes nothing, even after its pet was ordered again', async () => {
    const { service, petStatus, orderRepository } = await storeWith(['available']);
    const first = await place(service, alice, 1);
    const cancelled = value(await service.cancel(alice, first.id));
    const second = await place(service, bob, 1);
    expect(await petStatus(1)).toBe('pending');
    expect(await service.cancel(alice, first.id)).toEqual({ ok: true, value: cancelled });
    expect(await service.cancel(staff, first.id)).toEqual({ ok: true, value: cancelled });
    // The pet stays held by the second order.
    expect(await petStatus(1)).toBe('pending');
    expect(await orderRepository.get(second.id)).toEqual(second);
  });

  it('a delivered order is order_not_cancellable, and stays delivered with its pet sold', async () => {
    const { service, petStatus } = await storeWith(['available']);
    const order = await place(service, alice, 1);
    value(await service.update(staff, order.id, { status: 'approved' }));
    const delivered = value(await service.update(staff, order.id, { status: 'delivered' }));
    for (const caller of [alice, staff]) {
      expect(errorOf(await service.cancel(caller, order.id))).toEqual({
        code: 'order_not_cancellable',
        message: `order ${order.id} is delivered and cannot be cancelled`,
      });
    }
    expect(await service.get(alice, order.id)).toEqual({ ok: true, value: delivered });
    expect(await petStatus(1)).toBe('sold');
  });

  it("a customer cannot cancel another's order: not_found, and nothing changes", async () => {
    const { service, petStatus } = await storeWith(['available']);
    const order = await place(service, alice, 1);
    expect(errorOf(await service.cancel(bob, order.id))).toEqual({ code: 'not_found', message: `order ${order.id} not found` });
    expect(await service.get(alice, order.id)).toEqual({ ok: true, value: order });
    expect(await petStatus(1)).toBe('pending');
  });

  it('staff may cancel any order', async () => {
    const { service, petStatus } = await storeWith(['available']);
    const order = await place(service, alice, 1);
    expect(value(await service.cancel(staff, order.id)).status).toBe('cancelled');
    expect(await petStatus(1)).toBe('available');
  });

  it('an order that does not exist is not_found; a bad id is a 400', async () => {
    const { service } = await storeWith(['available']);
    expect(codeOf(await service.cancel(staff, 1))).toBe('not_found');
    expect(errorOf(await service.cancel(staff, 'x'))).toMatchObject({ code: 'invalid_request', field: 'orderId' });
  });

  it('an order cancelled by another request between the lookup and the change: still ok, and still cancelled', async () => {
    const { service, orderRepository, petStatus } = await storeWith(['available']);
    const order = await place(service, alice, 1);
    const racing: OrderRepository = {
      place: (o, c) => orderRepository.place(o, c),
      get: (id) => orderRepository.get(id),
      page: (q) => orderRepository.page(q),
      async transition(id, from, to, pet) {
        await orderRepository.transition(id, ['placed', 'approved'], 'cancelled', 'available');
        return orderRepository.transition(id, from, to, pet);
      },
    };
    const racingService = new OrderService(racing, new ManualClock(START));
    expect(await racingService.cancel(alice, order.id)).toEqual({ ok: true, value: { ...order, status: 'cancelled' } });
    expect(await petStatus(1)).toBe('available');
  });

  it('an order delivered by another request between the lookup and the change is order_not_cancellable', async () => {
    const { service, orderRepository, petStatus } = await storeWith(['available']);
    const order = await place(service, alice, 1);
    value(await service.update(staff, order.id, { status: 'approved' }));
    const racing: OrderRepository = {
      place: (o, c) => orderRepository.place(o, c),
      get: (id) => orderRepository.get(id),
      page: (q) => orderRepository.page(q),
      async transition(id, from, to, pet) {
        await orderRepository.transition(id, ['approved'], 'delivered', 'sold');
        return orderRepository.transition(id, from, to, pet);
      },
    };
    const racingService = new OrderService(racing, new ManualClock(START));
    expect(codeOf(await racingService.cancel(alice, order.id))).toBe('order_not_cancellable');
    expect(await petStatus(1)).toBe('sold');
  });
});

describe('OrderService.update', () => {
  it.each([
    ['its own order', { status: 'approved' }, 1],
    ['a valid body', { status: 'delivered' }, 1],
    ['an invalid body', { status: 'cancelled' }, 1],
    ['a bad order id', { status: 'approved' }, 'x'],
    ['an unknown order', { status: 'approved' }, 999],
  ])('a customer is forbidden before any lookup (%s)', async (_, body, orderId) => {
    const service = new OrderService(untouchable, new ManualClock(START));
    expect(errorOf(await service.update(alice, untyped(orderId), untyped(body)))).toEqual({ code: 'forbidden', message: 'only staff keys may change an order' });
  });

  it("a customer's PATCH changes nothing in a real store", async () => {
    const { service, petStatus } = await storeWith(['available']);
    const order = await place(service, alice, 1);
    expect(codeOf(await service.update(alice, order.id, { status: 'approved' }))).toBe('forbidden');
    expect(await service.get(alice, order.id)).toEqual({ ok: true, value: order });
    expect(await petStatus(1)).toBe('pending');
  });

  it('staff approve a placed order (pet stays pending), then deliver it (pet sold)', async () => {
    const { service, petStatus } = await storeWith(['available']);
    const order = await place(service, alice, 1);
    expect(await service.update(staff, order.id, { status: 'approved' })).toEqual({ ok: true, value: { ...order, status: 'approved' } });
    expect(await petStatus(1)).toBe('pending');
    expect(await service.update(staff, String(order.id), { status: 'delivered' })).toEqual({
      ok: true,
      value: { ...order, status: 'delivered' },
    });
    expect(await petStatus(1)).toBe('sold');
  });

  /** An order of pet 1 brought to `status` by the service itself. */
  const orderIn = async (status: 'placed' | 'approved' | 'delivered' | 'cancelled') => {
    const store = await storeWith(['available']);
    const order = await place(store.service, alice, 1);
    if (status === 'approved' || status === 'delivered') value(await store.service.update(staff, order.id, { status: 'approved' }));
    if (status === 'delivered') value(await store.service.update(staff, order.id, { status: 'delivered' }));
    if (status === 'cancelled') value(await store.service.cancel(alice, order.id));
    return { ...store, order: value(await store.service.get(staff, order.id)) };
  };

  it.each([
    ['approve', 'approved'],
    ['approve', 'delivered'],
    ['approve', 'cancelled'],
    ['deliver', 'placed'],
    ['deliver', 'delivered'],
    ['deliver', 'cancelled'],
  ] as const)('%s of a %s order is invalid_transition, and nothing changes', async (action, from) => {
    const { service, order, petStatus } = await orderIn(from);
    const petBefore = await petStatus(1);
    const status = action === 'approve' ? 'approved' : 'delivered';
    expect(errorOf(await service.update(staff, order.id, { status }))).toEqual({
      code: 'invalid_transition',
      message: `order ${order.id} is ${from}: it cannot become ${status}`,
    });
    expect(await service.get(staff, order.id)).toEqual({ ok: true, value: order });
    expect(await petStatus(1)).toBe(petBefore);
  });

  it.each([{ status: 'cancelled' }, { status: 'placed' }, { status: 'sold' }, { status: 'approved', petId: 1 }, {}, null])(
    'staff sending %j get a 400, and nothing changes',
    async (body) => {
      const { service, order, petStatus } = await orderIn('placed');
      expect(codeOf(await service.update(staff, order.id, untyped(body)))).toBe('invalid_request');
      expect(await service.get(staff, order.id)).toEqual({ ok: true, value: order });
      expect(await petStatus(1)).toBe('pending');
    },
  );

  it('staff changing an order that does not exist get not_found; a bad id is a 400', async () => {
    const { service } = await storeWith(['available']);
    expect(errorOf(await service.update(staff, 5, { status: 'approved' }))).toEqual({ code: 'not_found', message: 'order 5 not found' });
    expect(errorOf(await service.update(staff, '0', { status: 'approved' }))).toMatchObject({ code: 'invalid_request', field: 'orderId' });
  });

  it("staff may move a customer's order, and its owner then sees the change", async () => {
    const { service, order } = await orderIn('placed');
    value(await service.update(staff, order.id, { status: 'approved' }));
    expect(value(await service.get(alice, order.id)).status).toBe('approved');
  });
});

describe('PetCatalog.inventory over orders', () => {
  it('counts pets by status as orders move them', async () => {
    const { service, catalog } = await storeWith(['available', 'available', 'available', 'sold']);
    expect(await catalog.inventory()).toEqual({ available: 3, pending: 0, sold: 1 });
    const a = await place(service, alice, 1);
    const b = await place(service, bob, 2);
    expect(await catalog.inventory()).toEqual({ available: 1, pending: 2, sold: 1 });
    value(await service.update(staff, a.id, { status: 'approved' }));
    value(await service.update(staff, a.id, { status: 'delivered' }));
    value(await service.cancel(bob, b.id));
    expect(await catalog.inventory()).toEqual({ available: 2, pending: 0, sold: 2 });
  });
});
