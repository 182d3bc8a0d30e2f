import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryIdempotencyRecords } from '../../src/adapters/memory/memory-idempotency-records.js';
import { MemoryOrderRepository } from '../../src/adapters/memory/memory-order-repository.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import type { Caller } from '../../src/domain/access/caller.js';
import type { DomainError, DomainErrorCode } from '../../src/domain/errors.js';
import { ORDER_STATUSES, type Order, type OrderStatus } from '../../src/domain/orders/order.js';
import { OrderService } from '../../src/domain/orders/order-service.js';
import { ORDER_TRANSITIONS, PET_STATUS_OF_ORDER } from '../../src/domain/orders/order-status-machine.js';
import { MAX_ID, PET_STATUSES, isValidId, type Pet, type PetStatus } from '../../src/domain/pets/pet.js';
import { PetCatalog } from '../../src/domain/pets/pet-catalog.js';
import type { Result } from '../../src/domain/result.js';
import { pagedPets } from '../contracts/stores-fixture.js';
import { ManualClock } from '../support/manual-clock.js';
import { untyped } from '../support/untyped.js';
import { runs } from '../support/property-runs.js';

// Customers and staff: several of each, so ownership and visibility matter.
const CALLERS: readonly Caller[] = [
  { id: 'customer-a', role: 'customer' },
  { id: 'customer-b', role: 'customer' },
  { id: 'customer-c', role: 'customer' },
  { id: 'staff-a', role: 'staff' },
  { id: 'staff-b', role: 'staff' },
];

type Command =
  | { readonly kind: 'place'; readonly caller: number; readonly body: unknown; readonly advanceMs: number }
  | { readonly kind: 'approve' | 'deliver' | 'cancel' | 'get'; readonly caller: number; readonly orderId: unknown }
  | { readonly kind: 'patch'; readonly caller: number; readonly orderId: unknown; readonly body: unknown }
  | { readonly kind: 'list'; readonly caller: number; readonly status: OrderStatus | undefined }
  | { readonly kind: 'addPet'; readonly status: PetStatus };

/**
 * An id chosen when the command runs, among the `count` that exist then: small n name the
 * latest ones (where the action is), and one n in (count + 1) names the next id, which does
 * not exist yet. Drawn once, it may name an order placed later.
 */
class Pick {
  constructor(readonly n: number) {}
  resolve(count: number): number {
    const back = this.n % (count + 1);
    return back === count ? count + 1 : count - back;
  }
  toString(): string {
    return `pick(${this.n})`;
  }
}
// Ids that mostly exist, sometimes do not, and sometimes are not ids at all.
const idArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(3).map((n) => new Pick(n)) },
  { weight: 4, arbitrary: fc.nat(1_000).map((n) => new Pick(n)) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, -1, 1.5, 'x', '3', MAX_ID, 2 ** 53, null) },
);
const petIdArb = idArb;
const orderIdArb = idArb;
// Staff more often than customers, so orders move often enough to be delivered.
const callerArb = fc.constantFrom(0, 1, 2, 3, 4, 3, 4, 3, 4);
const petStatusArb = fc.constantFrom<PetStatus>('available', 'available', 'available', 'available', 'pending', 'sold');

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      caller: callerArb,
      body: fc.oneof(
        { weight: 10, arbitrary: petIdArb.map((petId): unknown => ({ petId })) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>({ petId: 1, quantity: 1 }, {}, null, [{ petId: 1 }]) },
      ),
      advanceMs: fc.integer({ min: 0, max: 90_000 }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('approve' as const), caller: callerArb, orderId: orderIdArb }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('deliver' as const), caller: callerArb, orderId: orderIdArb }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('cancel' as const), caller: callerArb, orderId: orderIdArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('patch' as const),
      caller: callerArb,
      orderId: orderIdArb,
      body: fc.constantFrom<unknown>({ status: 'cancelled' }, { status: 'placed' }, { status: 'approved', x: 1 }, {}, null),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('get' as const), caller: callerArb, orderId: orderIdArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('list' as const),
      caller: callerArb,
      status: fc.option(fc.constantFrom(...ORDER_STATUSES), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('addPet' as const), status: petStatusArb }) },
);

const scenarioArb = fc.record({
  pets: fc.array(petStatusArb, { minLength: 1, maxLength: 8 }),
  commands: fc.array(commandArb, { minLength: 1, maxLength: 60, size: 'max' }),
});

/** The command with its picked ids made concrete, given how many pets and orders exist now. */
const resolveIds = (command: Command, pets: number, orders: number): Command => {
  if (command.kind === 'place') {
    const body = command.body as { petId?: unknown } | null;
    if (typeof body === 'object' && body !== null && body.petId instanceof Pick) return { ...command, body: { petId: body.petId.resolve(pets) } };
    return command;
  }
  if ('orderId' in command && command.orderId instanceof Pick) return { ...command, orderId: command.orderId.resolve(orders) };
  return command;
};

const START = Date.UTC(2031, 5, 7, 8, 9, 10, 11);

const storeWith = async (petStatuses: readonly PetStatus[]) => {
  const clock = new ManualClock(START);
  const records = new MemoryIdempotencyRecords(clock);
  const petRepository = new MemoryPetRepository(records);
  const orderRepository = new MemoryOrderRepository(petRepository, records);
  const catalog = new PetCatalog(petRepository);
  const service = new OrderService(orderRepository, clock);
  for (const status of petStatuses) await catalog.create({ name: 'pet', categoryId: 1, status });
  const allOrders = (): Promise<readonly Order[]> => orderRepository.page({ afterId: 0, limit: 1_000_000 });
  const allPets = (): Promise<readonly Pet[]> => pagedPets(petRepository, { afterId: 0, limit: 1_000_000 });
  return { clock, catalog, service, allOrders, allPets };
};
type Store = Awaited<ReturnType<typeof storeWith>>;

/**
 * The rule, from the orders alone: a pet is pending while it has a live (placed or approved)
 * order, sold when its order is delivered, available when it had orders and all were
 * cancelled, and as it was created when it never had one.
 */
const checkPetsFollowTheirOrders = async (store: Store, createdAs: readonly PetStatus[]): Promise<void> => {
  const pets = await store.allPets();
  const orders = await store.allOrders();
  expect(pets.map((pet) => pet.id)).toEqual(createdAs.map((_, i) => i + 1));
  for (const order of orders) {
    if (order.petId < 1 || order.petId > pets.length) throw new Error(`order ${order.id} holds pet ${order.petId}, which does not exist`);
  }
  for (const pet of pets) {
    const ofPet = orders.filter((order) => order.petId === pet.id);
    const live = ofPet.filter((order) => order.status === 'placed' || order.status === 'approved');
    const delivered = ofPet.filter((order) => order.status === 'delivered');
    const context = () => `pet ${pet.id} is ${pet.status}; its orders: ${JSON.stringify(ofPet.map((o) => [o.id, o.status]))}`;
    if (live.length > 1) throw new Error(`two live orders on one pet: ${context()}`);
    if (delivered.length > 1) throw new Error(`a pet sold twice: ${context()}`);
    const implied: PetStatus =
      live.length === 1 ? 'pending' : delivered.length === 1 ? 'sold' : ofPet.length > 0 ? 'available' : createdAs[pet.id - 1]!;
    if (pet.status !== implied) throw new Error(`pet status differs from what its orders imply (${implied}): ${context()}`);
    // The same rule through the table: a pet with orders has the status its latest order gives it.
    const latest = ofPet.at(-1);
    if (latest !== undefined && pet.status !== PET_STATUS_OF_ORDER[latest.status]) throw new Error(`latest order disagrees: ${context()}`);
    // Only a pet created available is ever ordered, and once sold it takes no more orders.
    if (ofPet.length > 0 && createdAs[pet.id - 1] !== 'available') throw new Error(`a pet created ${createdAs[pet.id - 1]} was ordered: ${context()}`);
    if (delivered.length === 1 && delivered[0] !== latest) throw new Error(`an order after the sale: ${context()}`);
  }
  const inventory = await store.catalog.inventory();
  expect(inventory).toEqual(Object.fromEntries(PET_STATUSES.map((status) => [status, pets.filter((pet) => pet.status === status).length])));
  // Listing pets by status follows their changes too.
  for (const status of PET_STATUSES) {
    const listed = await store.catalog.list({ status, limit: 100 });
    expect(listed).toEqual({ ok: true, value: { pets: pets.filter((pet) => pet.status === status) } });
  }
};

// The edges of the status machine, as "from->to".
const EDGES: ReadonlySet<string> = new Set(Object.values(ORDER_TRANSITIONS).flatMap(({ from, to }) => from.map((f) => `${f}->${to}`)));
const EXPECTED_EDGES = ['placed->approved', 'approved->delivered', 'placed->cancelled', 'approved->cancelled'];

/** Every path from `from` to `to` in the status machine, each as the statuses it passes through ([[]] when equal; [] when none). */
const pathsBetween = (from: OrderStatus, to: OrderStatus): OrderStatus[][] => {
  if (from === to) return [[]];
  return Object.values(ORDER_TRANSITIONS).flatMap(({ from: sources, to: next }) =>
    (sources as readonly OrderStatus[]).includes(from) ? pathsBetween(next, to).map((rest) => [next, ...rest]) : [],
  );
};

/** Orders never vanish, never change pet, owner or time, and change status only along one edge (or, for `maxSteps` > 1, a path). */
const checkStatusMoves = (before: ReadonlyMap<number, Order>, after: readonly Order[], maxSteps: number): void => {
  expect(after.map((order) => order.id)).toEqual(after.map((_, i) => i + 1));
  expect(after.length).toBeGreaterThanOrEqual(before.size);
  for (const order of after) {
    const previous = before.get(order.id);
    if (previous === undefined) {
      // Placing is one step, and each later move another.
      if (!pathsBetween('placed', order.status).some((path) => path.length <= maxSteps - 1)) {
        throw new Error(`order ${order.id} appeared as ${order.status}`);
      }
      continue;
    }
    expect({ ...order, status: previous.status }).toEqual(previous);
    if (previous.status === order.status) continue;
    if (maxSteps === 1 && !EDGES.has(`${previous.status}->${order.status}`)) {
      throw new Error(`order ${order.id} moved ${previous.status} -> ${order.status}, not along the status machine`);
    }
    if (!pathsBetween(previous.status, order.status).some((path) => path.length <= maxSteps)) {
      throw new Error(`order ${order.id} moved ${previous.status} -> ${order.status}, not along the status machine`);
    }
  }
};

/** What the service must answer, from a plain model of pets and orders. */
class Model {
  readonly pets: PetStatus[];
  readonly orders: Order[] = [];

  constructor(pets: readonly PetStatus[]) {
    this.pets = [...pets];
  }

  private visible(caller: Caller, orderId: unknown): Order | DomainErrorCode {
    const id = typeof orderId === 'string' && /^[0-9]+$/.test(orderId) ? Number(orderId) : orderId;
    if (typeof id !== 'number' || !isValidId(id)) return 'invalid_request';
    const order = this.orders[id - 1];
    return order !== undefined && (caller.role === 'staff' || order.ownerId === caller.id) ? order : 'not_found';
  }

  private move(order: Order, to: OrderStatus): Order {
    const moved = { ...order, status: to };
    this.orders[order.id - 1] = moved;
    this.pets[order.petId - 1] = PET_STATUS_OF_ORDER[to];
    return moved;
  }

  /** The expected answer: the value on success, the error code otherwise; applies the change. */
  apply(command: Command, now: number): { ok: true; value: unknown } | { ok: false; code: DomainErrorCode } {
    const fail = (code: DomainErrorCode) => ({ ok: false as const, code });
    if (command.kind === 'addPet') {
      this.pets.push(command.status);
      return { ok: true, value: { id: this.pets.length, name: 'pet', categoryId: 1, status: command.status } };
    }
    const caller = CALLERS[command.caller]!;
    switch (command.kind) {
      case 'place': {
        const body = command.body;
        if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail('invalid_request');
        const keys = Object.keys(body);
        if (keys.length !== 1 || keys[0] !== 'petId') return fail('invalid_request');
        const petId = (body as { petId: unknown }).petId;
        if (typeof petId !== 'number' || !isValidId(petId)) return fail('invalid_request');
        const pet = this.pets[petId - 1];
        if (pet === undefined) return fail('not_found');
        if (pet !== 'available') return fail('pet_unavailable');
        const order: Order = { id: this.orders.length + 1, petId, status: 'placed', placedAt: new Date(now).toISOString(), ownerId: caller.id };
        this.orders.push(order);
        this.pets[petId - 1] = 'pending';
        return { ok: true, value: order };
      }
      case 'get': {
        const order = this.visible(caller, command.orderId);
        return typeof order === 'string' ? fail(order) : { ok: true, value: order };
      }
      case 'list':
        return {
          ok: true,
          value: {
            orders: this.orders.filter(
              (order) => (caller.role === 'staff' || order.ownerId === caller.id) && (command.status === undefined || order.status === command.status),
            ),
          },
        };
      case 'cancel': {
        const order = this.visible(caller, command.orderId);
        if (typeof order === 'string') return fail(order);
        if (order.status === 'cancelled') return { ok: true, value: order };
        if (order.status === 'delivered') return fail('order_not_cancellable');
        return { ok: true, value: this.move(order, 'cancelled') };
      }
      case 'approve':
      case 'deliver':
      case 'patch': {
        if (caller.role !== 'staff') return fail('forbidden');
        const id = typeof command.orderId === 'string' && /^[0-9]+$/.test(command.orderId) ? Number(command.orderId) : command.orderId;
        if (typeof id !== 'number' || !isValidId(id)) return fail('invalid_request');
        if (command.kind === 'patch') return fail('invalid_request'); // every generated patch body is invalid
        const order = this.orders[id - 1];
        if (order === undefined) return fail('not_found');
        const { from, to } = ORDER_TRANSITIONS[command.kind];
        if (!(from as readonly OrderStatus[]).includes(order.status)) return fail('invalid_transition');
        return { ok: true, value: this.move(order, to) };
      }
    }
  }
}

const run = (store: Store, command: Command): Promise<Result<unknown, DomainError>> => {
  if (command.kind === 'addPet') return store.catalog.create({ name: 'pet', categoryId: 1, status: command.status });
  const caller = CALLERS[command.caller]!;
  switch (command.kind) {
    case 'place':
      return store.service.place(caller, untyped(command.body));
    case 'approve':
      return store.service.update(caller, untyped(command.orderId), { status: 'approved' });
    case 'deliver':
      return store.service.update(caller, untyped(command.orderId), { status: 'delivered' });
    case 'patch':
      return store.service.update(caller, untyped(command.orderId), untyped(command.body));
    case 'cancel':
      return store.service.cancel(caller, untyped(command.orderId));
    case 'get':
      return store.service.get(caller, untyped(command.orderId));
    case 'list':
      return store.service.list(caller, { limit: 100, ...(command.status === undefined ? {} : { status: command.status }) });
  }
};

const snapshot = async (store: Store): Promise<Map<number, Order>> => new Map((await store.allOrders()).map((order) => [order.id, order]));

describe('orders over the memory adapters, any sequence of commands', () => {
  it('the status machine in the tests is the one in the design', () => {
    expect([...EDGES].sort()).toEqual([...EXPECTED_EDGES].sort());
  });

  it(
    "any sequence of place, approve, deliver and cancel calls from any keys (customers and staff) keeps every pet's status " +
      'equal to what its orders imply (pending while it has a live placed/approved order, sold when its order is delivered, ' +
      'available otherwise) and never leaves two live orders on one pet',
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, async ({ pets, commands }) => {
          const store = await storeWith(pets);
          const model = new Model(pets);
          const createdAs = [...pets];
          for (const [step, generated] of commands.entries()) {
            const command = resolveIds(generated, model.pets.length, model.orders.length);
            if (command.kind === 'place') store.clock.advance(command.advanceMs);
            if (command.kind === 'addPet') createdAs.push(command.status);
            const result = await run(store, command);
            const expected = model.apply(command, store.clock.now());
            const where = () => `step ${step}: ${JSON.stringify(command)}`;
            if (expected.ok) {
              if (!result.ok) throw new Error(`${where()}: expected success, got ${result.error.code} (${result.error.message})`);
              expect(result.value, where()).toEqual(expected.value);
            } else {
              if (result.ok) throw new Error(`${where()}: expected ${expected.code}, got ${JSON.stringify(result.value)}`);
              expect(result.error.code, where()).toBe(expected.code);
            }
            await checkPetsFollowTheirOrders(store, createdAs);
            expect(await store.allOrders()).toEqual(model.orders);
          }
        }),
        { numRuns: runs(500) },
      );
    },
  );

  it("an order's status only ever moves along placed -> approved -> delivered or to cancelled from placed/approved", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ pets, commands }) => {
        const store = await storeWith(pets);
        let before = await snapshot(store);
        let petCount = pets.length;
        for (const generated of commands) {
          const command = resolveIds(generated, petCount, before.size);
          if (command.kind === 'place') store.clock.advance(command.advanceMs);
          if (command.kind === 'addPet') petCount += 1;
          const result = await run(store, command);
          const after = await store.allOrders();
          checkStatusMoves(before, after, 1);
          // A command moves at most one order, by one step, and only when it succeeds.
          const changed = after.filter((order) => before.get(order.id)?.status !== order.status);
          expect(changed.length).toBeLessThanOrEqual(1);
          if (!result.ok) expect(changed).toEqual([]);
          before = new Map(after.map((order) => [order.id, order]));
        }
      }),
      { numRuns: runs(500) },
    );
  });

  it(
    'commands run concurrently, in batches, keep the same rules: pets follow their orders, one live order per pet, ' +
      'and every order moves only forward along the status machine, each step taken by exactly one successful command',
    async () => {
      const batchesArb = fc.record({
        pets: fc.array(petStatusArb, { minLength: 1, maxLength: 4 }),
        batches: fc.array(fc.array(commandArb.filter((command) => command.kind !== 'addPet'), { minLength: 1, maxLength: 8, size: 'max' }), {
          minLength: 1,
          maxLength: 10,
          size: 'max',
        }),
      });
      await fc.assert(
        fc.asyncProperty(batchesArb, async ({ pets, batches }) => {
          const store = await storeWith(pets);
          let before = await snapshot(store);
          for (const generated of batches) {
            const batch = generated.map((command) => resolveIds(command, pets.length, before.size));
            const results = await Promise.all(batch.map((command) => run(store, command)));
            const after = await store.allOrders();
            checkStatusMoves(before, after, batch.length);
            await checkPetsFollowTheirOrders(store, pets);
            // Successful moves of each order, by target status.
            const successes = new Map<number, OrderStatus[]>();
            batch.forEach((command, i) => {
              const result = results[i]!;
              if (!result.ok || command.kind === 'get' || command.kind === 'list' || command.kind === 'addPet') return;
              const order = result.value as Order;
              const list = successes.get(order.id) ?? [];
              list.push(order.status);
              successes.set(order.id, list);
            });
            for (const order of after) {
              const previous = before.get(order.id);
              const answered = successes.get(order.id) ?? [];
              expect(answered.filter((status) => status === 'placed').length, `order ${order.id} placed`).toBe(previous === undefined ? 1 : 0);
              const moves = answered.filter((status) => status === 'approved' || status === 'delivered').sort();
              const cancelled = answered.includes('cancelled');
              // Some path of the machine from where the order was to where it is took exactly the approve and deliver
              // steps answered as successes, and a cancel step exactly when a cancel succeeded.
              const paths = pathsBetween(previous?.status ?? 'placed', order.status);
              const explained = paths.some(
                (path) =>
                  JSON.stringify(path.filter((status) => status !== 'cancelled').sort()) === JSON.stringify(moves) &&
                  (path.includes('cancelled') ? cancelled : !cancelled || previous?.status === 'cancelled'),
              );
              if (!explained) {
                throw new Error(`order ${order.id} went ${previous?.status ?? '(new)'} -> ${order.status} but the batch answered ${JSON.stringify(answered)}`);
              }
            }
            before = new Map(after.map((order) => [order.id, order]));
          }
        }),
        { numRuns: runs(300) },
      );
    },
  );
});
