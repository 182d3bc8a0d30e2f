import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ORDER_TRANSITIONS, PET_STATUS_OF_ORDER, type OrderAction } from '../../src/domain/orders/order-status-machine.js';
import { ORDER_STATUSES, type NewOrder, type Order, type OrderStatus } from '../../src/domain/orders/order.js';
import { PET_STATUSES, type PetStatus } from '../../src/domain/pets/pet.js';
import type { OrderPageQuery, OrderRepository } from '../../src/ports/order-repository.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';
import { claimOf, pagedPets, type CreateStores, type StoresFixture } from './stores-fixture.js';
import { runs } from '../support/property-runs.js';

export interface OrderRepositoryContractOptions {
  /** Runs of the model-based property; each run creates fresh stores. */
  readonly numRuns?: number;
}

const PLACED_AT = '2026-11-21T08:36:00.123Z';
const ALICE = 'a'.repeat(64);
const BOB = 'b'.repeat(64);

const newOrder = (petId: number, ownerId = ALICE): NewOrder => ({ petId, ownerId, placedAt: PLACED_AT });
const orderOf = (id: number, petId: number, status: OrderStatus, ownerId = ALICE): Order => ({
  id,
  petId,
  status,
  placedAt: PLACED_AT,
  ownerId,
});

const addPet = async (pets: PetRepository, status: PetStatus = 'available'): Promise<number> =>
  (await pets.create({ name: `pet ${status}`, categoryId: 1, status })).id;

const statusOfPet = async (pets: PetRepository, id: number): Promise<PetStatus | undefined> => (await pets.get(id))?.status;

const move = (orders: OrderRepository, id: number, action: OrderAction) => {
  const { from, to } = ORDER_TRANSITIONS[action];
  return orders.transition(id, from, to, PET_STATUS_OF_ORDER[to]);
};

/**
 * The behaviour every OrderRepository adapter shares, over the pets of the same store.
 * `create` must give fresh, empty stores (ids start at 1) and `cleanup` must release them.
 */
export const describeOrderRepositoryContract = (
  adapterName: string,
  create: CreateStores,
  options: OrderRepositoryContractOptions = {},
): void => {
  describe(`${adapterName} fulfils the OrderRepository contract`, () => {
    let fixture: StoresFixture;
    let orders: OrderRepository;
    let pets: PetRepository;

    beforeEach(async () => {
      fixture = await create();
      ({ orders, pets } = fixture);
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('placing stores the order placed, with ids from 1, and moves its pet from available to pending', async () => {
      const rex = await addPet(pets);
      const tom = await addPet(pets);
      expect(await orders.place(newOrder(rex))).toEqual({ kind: 'placed', order: orderOf(1, rex, 'placed') });
      expect(await orders.place(newOrder(tom, BOB))).toEqual({ kind: 'placed', order: orderOf(2, tom, 'placed', BOB) });
      expect(await orders.get(1)).toEqual(orderOf(1, rex, 'placed'));
      expect(await orders.get(2)).toEqual(orderOf(2, tom, 'placed', BOB));
      expect(await pets.get(rex)).toEqual({ id: rex, name: 'pet available', categoryId: 1, status: 'pending' });
      expect(await pagedPets(pets, { afterId: 0, limit: 10, status: 'pending' })).toHaveLength(2);
      expect(await pagedPets(pets, { afterId: 0, limit: 10, status: 'available' })).toEqual([]);
      expect(await pets.countByStatus()).toEqual({ available: 0, pending: 2, sold: 0 });
    });

    it('an unknown pet is not found, and nothing is stored', async () => {
      expect(await orders.place(newOrder(1))).toEqual({ kind: 'pet_not_found' });
      await addPet(pets);
      expect(await orders.place(newOrder(2))).toEqual({ kind: 'pet_not_found' });
      expect(await orders.place(newOrder(Number.MAX_SAFE_INTEGER))).toEqual({ kind: 'pet_not_found' });
      expect(await orders.page({ afterId: 0, limit: 10 })).toEqual([]);
      expect(await orders.get(1)).toBeUndefined();
      expect(await statusOfPet(pets, 1)).toBe('available');
    });

    it('a pet that is not available is refused, and neither it nor the orders change', async () => {
      const pending = await addPet(pets, 'pending');
      const sold = await addPet(pets, 'sold');
      expect(await orders.place(newOrder(pending))).toEqual({ kind: 'pet_unavailable' });
      expect(await orders.place(newOrder(sold))).toEqual({ kind: 'pet_unavailable' });
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      expect(await orders.place(newOrder(rex, BOB))).toEqual({ kind: 'pet_unavailable' });
      expect(await orders.page({ afterId: 0, limit: 10 })).toEqual([orderOf(1, rex, 'placed')]);
      expect(await pets.countByStatus()).toEqual({ available: 0, pending: 2, sold: 1 });
    });

    it('get of an id never assigned is undefined', async () => {
      expect(await orders.get(1)).toBeUndefined();
      await orders.place(newOrder(await addPet(pets)));
      expect(await orders.get(2)).toBeUndefined();
      expect(await orders.get(Number.MAX_SAFE_INTEGER)).toBeUndefined();
    });

    it('a transition applies when the status is one of from, moving the order and its pet together', async () => {
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      expect(await move(orders, 1, 'approve')).toEqual({ kind: 'changed', order: orderOf(1, rex, 'approved') });
      expect(await statusOfPet(pets, rex)).toBe('pending');
      expect(await move(orders, 1, 'deliver')).toEqual({ kind: 'changed', order: orderOf(1, rex, 'delivered') });
      expect(await orders.get(1)).toEqual(orderOf(1, rex, 'delivered'));
      expect(await statusOfPet(pets, rex)).toBe('sold');
      expect(await pagedPets(pets, { afterId: 0, limit: 10, status: 'sold' })).toEqual([
        { id: rex, name: 'pet available', categoryId: 1, status: 'sold' },
      ]);
      // The pet's JSON, which a page joins as kept, moved with it.
      expect(await pets.pageJson({ afterId: 0, limit: 10 })).toEqual({
        json: JSON.stringify([{ id: rex, name: 'pet available', categoryId: 1, status: 'sold' }]),
        moreAfter: undefined,
      });

      const tom = await addPet(pets);
      await orders.place(newOrder(tom));
      expect(await move(orders, 2, 'cancel')).toEqual({ kind: 'changed', order: orderOf(2, tom, 'cancelled') });
      expect(await statusOfPet(pets, tom)).toBe('available');
      // Available again: the pet can be ordered anew.
      expect(await orders.place(newOrder(tom, BOB))).toEqual({ kind: 'placed', order: orderOf(3, tom, 'placed', BOB) });
      expect(await move(orders, 3, 'approve')).toMatchObject({ kind: 'changed' });
      expect(await move(orders, 3, 'cancel')).toEqual({ kind: 'changed', order: orderOf(3, tom, 'cancelled', BOB) });
      expect(await pets.countByStatus()).toEqual({ available: 1, pending: 0, sold: 1 });
    });

    it("a pet's status set directly leaves its order as it is, and the order's next move sets the pet's status as always", async () => {
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      expect(await pets.updateStatus(rex, 'sold')).toMatchObject({ id: rex, status: 'sold' });
      expect(await orders.get(1)).toEqual(orderOf(1, rex, 'placed'));
      expect(await pets.countByStatus()).toEqual({ available: 0, pending: 0, sold: 1 });
      expect(await move(orders, 1, 'approve')).toEqual({ kind: 'changed', order: orderOf(1, rex, 'approved') });
      expect(await statusOfPet(pets, rex)).toBe('pending');
      expect(await pets.updateStatus(rex, 'available')).toMatchObject({ status: 'available' });
      expect(await move(orders, 1, 'cancel')).toEqual({ kind: 'changed', order: orderOf(1, rex, 'cancelled') });
      expect(await statusOfPet(pets, rex)).toBe('available');
      expect(await pets.countByStatus()).toEqual({ available: 1, pending: 0, sold: 0 });
      expect(await pagedPets(pets, { afterId: 0, limit: 10, status: 'available' })).toHaveLength(1);
      expect(await pagedPets(pets, { afterId: 0, limit: 10, status: 'pending' })).toEqual([]);
    });

    it('a transition from another status is refused with the order as it is, and changes nothing', async () => {
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      expect(await move(orders, 1, 'deliver')).toEqual({ kind: 'refused', order: orderOf(1, rex, 'placed') });
      expect(await statusOfPet(pets, rex)).toBe('pending');
      await move(orders, 1, 'cancel');
      for (const action of ['approve', 'deliver', 'cancel'] as const) {
        expect(await move(orders, 1, action)).toEqual({ kind: 'refused', order: orderOf(1, rex, 'cancelled') });
      }
      // Exactly per `from`: an empty list refuses everything.
      expect(await orders.transition(1, [], 'placed', 'pending')).toEqual({ kind: 'refused', order: orderOf(1, rex, 'cancelled') });
      expect(await statusOfPet(pets, rex)).toBe('available');
      expect(await orders.page({ afterId: 0, limit: 10, status: 'cancelled' })).toEqual([orderOf(1, rex, 'cancelled')]);
      expect(await orders.page({ afterId: 0, limit: 10, status: 'placed' })).toEqual([]);
    });

    it('a transition of an unknown order is not found', async () => {
      expect(await move(orders, 1, 'cancel')).toEqual({ kind: 'not_found' });
      await orders.place(newOrder(await addPet(pets)));
      expect(await move(orders, 2, 'approve')).toEqual({ kind: 'not_found' });
      expect(await move(orders, Number.MAX_SAFE_INTEGER, 'approve')).toEqual({ kind: 'not_found' });
    });

    it('pages are ascending by id after afterId, by status, by owner and by both', async () => {
      const owners = [ALICE, BOB, ALICE, ALICE, BOB, ALICE];
      for (const owner of owners) await orders.place(newOrder(await addPet(pets), owner));
      await move(orders, 2, 'approve');
      await move(orders, 3, 'cancel');
      await move(orders, 4, 'approve');
      await move(orders, 4, 'deliver');
      await move(orders, 6, 'approve');
      const ids = async (query: Partial<OrderPageQuery>): Promise<number[]> =>
        (await orders.page({ afterId: 0, limit: 10, ...query })).map((order) => order.id);
      expect(await ids({})).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await ids({ afterId: 2, limit: 3 })).toEqual([3, 4, 5]);
      expect(await ids({ status: 'approved' })).toEqual([2, 6]);
      expect(await ids({ status: 'approved', afterId: 2 })).toEqual([6]);
      expect(await ids({ status: 'placed' })).toEqual([1, 5]);
      expect(await ids({ ownerId: ALICE })).toEqual([1, 3, 4, 6]);
      expect(await ids({ ownerId: ALICE, afterId: 1, limit: 2 })).toEqual([3, 4]);
      expect(await ids({ ownerId: BOB })).toEqual([2, 5]);
      expect(await ids({ ownerId: ALICE, status: 'approved' })).toEqual([6]);
      expect(await ids({ ownerId: BOB, status: 'approved' })).toEqual([2]);
      expect(await ids({ ownerId: BOB, status: 'delivered' })).toEqual([]);
      expect(await ids({ ownerId: 'c'.repeat(64) })).toEqual([]);
      expect(await ids({ limit: 0 })).toEqual([]);
      expect(await ids({ afterId: Number.MAX_SAFE_INTEGER })).toEqual([]);
      expect(await orders.page({ afterId: 0, limit: 1, ownerId: BOB, status: 'placed' })).toEqual([orderOf(5, 5, 'placed', BOB)]);
    });

    it('of 30 concurrent orders for one pet exactly one is placed', async () => {
      const rex = await addPet(pets);
      const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => orders.place(newOrder(rex, `owner ${i}`))));
      expect(outcomes.filter((outcome) => outcome.kind === 'placed')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === 'pet_unavailable')).toHaveLength(29);
      expect(await orders.page({ afterId: 0, limit: 100 })).toHaveLength(1);
      expect(await statusOfPet(pets, rex)).toBe('pending');
    });

    it('placements and transitions made together are each answered as if made alone, in the order they were made', async () => {
      const [rex, tom, sold, kit] = [await addPet(pets), await addPet(pets), await addPet(pets, 'sold'), await addPet(pets)];
      const placed = await Promise.all([rex, 999, sold, tom, rex, kit].map((petId, i) => orders.place(newOrder(petId, `owner ${i}`))));
      expect(placed.map((outcome) => outcome.kind)).toEqual(['placed', 'pet_not_found', 'pet_unavailable', 'placed', 'pet_unavailable', 'placed']);
      const ids = placed.flatMap((outcome) => (outcome.kind === 'placed' ? [outcome.order.id] : []));
      expect(placed.flatMap((outcome) => (outcome.kind === 'placed' ? [outcome.order.petId] : []))).toEqual([rex, tom, kit]);
      const [rexOrder = 0, tomOrder = 0, kitOrder = 0] = ids;
      const moved = await Promise.all([move(orders, rexOrder, 'cancel'), move(orders, 999, 'cancel'), move(orders, tomOrder, 'cancel'), move(orders, rexOrder, 'cancel'), move(orders, kitOrder, 'approve')]);
      expect(moved.map((outcome) => outcome.kind)).toEqual(['changed', 'not_found', 'changed', 'refused', 'changed']);
      expect(moved[3]).toEqual({ kind: 'refused', order: await orders.get(rexOrder) });
      expect([await statusOfPet(pets, rex), await statusOfPet(pets, tom), await statusOfPet(pets, kit)]).toEqual(['available', 'available', 'pending']);
    });

    it('of concurrent cancellations and deliveries of one order exactly one applies', async () => {
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      await move(orders, 1, 'approve');
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => move(orders, 1, i % 2 === 0 ? 'cancel' : 'deliver')));
      const changed = outcomes.filter((outcome) => outcome.kind === 'changed');
      expect(changed).toHaveLength(1);
      const final = await orders.get(1);
      expect(changed[0]).toEqual({ kind: 'changed', order: final });
      expect(await statusOfPet(pets, rex)).toBe(final?.status === 'delivered' ? 'sold' : 'available');
    });

    it('place with a claim completes its Idempotency-Key record with the order as placed', async () => {
      const rex = await addPet(pets);
      const claim = claimOf('order-rex', `POST /v1/store/orders {"petId":${rex}}`);
      expect(await fixture.idempotency.begin(claim)).toEqual({ kind: 'started' });
      const placed = await orders.place(newOrder(rex), claim);
      expect(placed).toEqual({ kind: 'placed', order: orderOf(1, rex, 'placed') });
      await move(orders, 1, 'cancel');
      // The order as placed, not as it is now.
      expect(await fixture.idempotency.begin(claim)).toEqual({ kind: 'replay', result: { kind: 'order', order: orderOf(1, rex, 'placed') } });
      // A refused order writes no record: its in-flight mark is still there to release.
      const refused = claimOf('order-unknown', 'POST /v1/store/orders {"petId":99}');
      await fixture.idempotency.begin(refused);
      expect(await orders.place(newOrder(99), refused)).toEqual({ kind: 'pet_not_found' });
      expect(await fixture.idempotency.begin(refused)).toMatchObject({ kind: 'in_flight' });
    });

    it('neither the input nor a returned order can change what is stored', async () => {
      const rex = await addPet(pets);
      const input = { ...newOrder(rex) };
      const placed = await orders.place(input);
      input.ownerId = BOB;
      const attempt = (mutation: () => void): void => {
        try {
          mutation();
        } catch (error) {
          if (!(error instanceof TypeError)) throw error;
        }
      };
      attempt(() => {
        if (placed.kind === 'placed') (placed.order as { status: string }).status = 'delivered';
      });
      const page = await orders.page({ afterId: 0, limit: 10 });
      attempt(() => {
        (page[0] as { ownerId: string }).ownerId = BOB;
      });
      expect(await orders.get(1)).toEqual(orderOf(1, rex, 'placed'));
      expect(await orders.page({ afterId: 0, limit: 10, ownerId: ALICE, status: 'placed' })).toEqual([orderOf(1, rex, 'placed')]);
    });

    it('any sequence of places and transitions answers every get and page like a model', async () => {
      const owners = [ALICE, BOB, 'c'.repeat(64)];
      const actions: OrderAction[] = ['approve', 'deliver', 'cancel'];
      const stepArb = fc.oneof(
        fc.record({ kind: fc.constant('place' as const), pet: fc.nat({ max: 5 }), owner: fc.nat({ max: 2 }) }),
        fc.record({ kind: fc.constant('move' as const), order: fc.nat({ max: 12 }), action: fc.constantFrom(...actions) }),
      );
      const queryArb = fc.record({
        afterId: fc.nat({ max: 14 }),
        limit: fc.integer({ min: 1, max: 6 }),
        status: fc.option(fc.constantFrom(...ORDER_STATUSES), { nil: undefined }),
        owner: fc.option(fc.nat({ max: 2 }), { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(...PET_STATUSES), { minLength: 6, maxLength: 6 }),
          fc.array(stepArb, { maxLength: 25 }),
          fc.array(queryArb, { maxLength: 8 }),
          async (petStatuses, steps, queries) => {
            const run = await create();
            try {
              const petModel: PetStatus[] = [];
              for (const status of petStatuses) petModel[(await addPet(run.pets, status)) - 1] = status;
              const model: Order[] = [];
              for (const step of steps) {
                if (step.kind === 'place') {
                  const order = orderOf(model.length + 1, step.pet + 1, 'placed', owners[step.owner]);
                  const expected = petModel[step.pet] === 'available' ? { kind: 'placed', order } : { kind: 'pet_unavailable' };
                  expect(await run.orders.place(newOrder(order.petId, order.ownerId))).toEqual(expected);
                  if (expected.kind === 'placed') {
                    model.push(order);
                    petModel[step.pet] = 'pending';
                  }
                } else {
                  const current = model[step.order - 1];
                  const { from, to } = ORDER_TRANSITIONS[step.action];
                  const outcome = await move(run.orders, step.order, step.action);
                  if (current === undefined) expect(outcome).toEqual({ kind: 'not_found' });
                  else if (!(from as readonly OrderStatus[]).includes(current.status)) expect(outcome).toEqual({ kind: 'refused', order: current });
                  else {
                    const changed = { ...current, status: to };
                    expect(outcome).toEqual({ kind: 'changed', order: changed });
                    model[step.order - 1] = changed;
                    petModel[current.petId - 1] = PET_STATUS_OF_ORDER[to];
                  }
                }
              }
              for (const [index, status] of petModel.entries()) expect(await statusOfPet(run.pets, index + 1)).toBe(status);
              for (const { afterId, limit, status, owner } of queries) {
                const ownerId = owner === undefined ? undefined : owners[owner];
                const expected = model
                  .filter((order) => order.id > afterId && (status === undefined || order.status === status))
                  .filter((order) => ownerId === undefined || order.ownerId === ownerId)
                  .slice(0, limit);
                const query = { afterId, limit, ...(status === undefined ? {} : { status }), ...(ownerId === undefined ? {} : { ownerId }) };
                expect(await run.orders.page(query)).toEqual(expected);
                expect(await run.orders.get(afterId)).toEqual(model[afterId - 1]);
              }
            } finally {
              await run.cleanup();
            }
          },
        ),
        { numRuns: options.numRuns ?? runs(100) },
      );
    });
  });
};
