import fc from 'fast-check';
import { ORDER_TRANSITIONS, PET_STATUS_OF_ORDER, type OrderAction } from '../domain/orders/order-status-machine.js';
import { ORDER_STATUSES, type NewOrder, type Order, type OrderStatus } from '../domain/orders/order.js';
import { PET_STATUSES, type PetStatus } from '../domain/pets/pet.js';
import type { OrderPageQuery, OrderRepository } from '../ports/order-repository.js';
import type { PetRepository } from '../ports/pet-repository.js';
import { claimOf, pagedPets, type CreateStores, type StoresFixture } from './stores-fixture.js';
import { like, same } from './assertions.js';
import { checkOf, type ContractCheck, type ContractOptions, type Disposable } from './check.js';

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
 * The behaviour every OrderRepository shares, over the pets of the same store: one check per
 * rule. `create` must give fresh, empty stores (ids start at 1) and `cleanup` must release them.
 */
export const orderRepositoryChecks = (create: CreateStores, options: ContractOptions = {}): ContractCheck[] => {
  interface Context extends Disposable {
    readonly fixture: StoresFixture;
    readonly orders: OrderRepository;
    readonly pets: PetRepository;
  }
  const setup = async (): Promise<Context> => {
    const fixture = await create();
    return { fixture, orders: fixture.orders, pets: fixture.pets, cleanup: async () => fixture.cleanup() };
  };
  const check = (name: string, body: (context: Context) => Promise<void>): ContractCheck => checkOf(name, setup, body);

  return [
    check('placing stores the order placed, with ids from 1, and moves its pet from available to pending', async ({ orders, pets }) => {
      const rex = await addPet(pets);
      const tom = await addPet(pets);
      same(await orders.place(newOrder(rex)), { kind: 'placed', order: orderOf(1, rex, 'placed') });
      same(await orders.place(newOrder(tom, BOB)), { kind: 'placed', order: orderOf(2, tom, 'placed', BOB) });
      same(await orders.get(1), orderOf(1, rex, 'placed'));
      same(await orders.get(2), orderOf(2, tom, 'placed', BOB));
      same(await pets.get(rex), { id: rex, name: 'pet available', categoryId: 1, status: 'pending' });
      same((await pagedPets(pets, { afterId: 0, limit: 10, status: 'pending' })).length, 2);
      same(await pagedPets(pets, { afterId: 0, limit: 10, status: 'available' }), []);
      same(await pets.countByStatus(), { available: 0, pending: 2, sold: 0 });
    }),

    check('an unknown pet is not found, and nothing is stored', async ({ orders, pets }) => {
      same(await orders.place(newOrder(1)), { kind: 'pet_not_found' });
      await addPet(pets);
      same(await orders.place(newOrder(2)), { kind: 'pet_not_found' });
      same(await orders.place(newOrder(Number.MAX_SAFE_INTEGER)), { kind: 'pet_not_found' });
      same(await orders.page({ afterId: 0, limit: 10 }), []);
      same(await orders.get(1), undefined);
      same(await statusOfPet(pets, 1), 'available');
    }),

    check('a pet that is not available is refused, and neither it nor the orders change', async ({ orders, pets }) => {
      const pending = await addPet(pets, 'pending');
      const sold = await addPet(pets, 'sold');
      same(await orders.place(newOrder(pending)), { kind: 'pet_unavailable' });
      same(await orders.place(newOrder(sold)), { kind: 'pet_unavailable' });
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      same(await orders.place(newOrder(rex, BOB)), { kind: 'pet_unavailable' });
      same(await orders.page({ afterId: 0, limit: 10 }), [orderOf(1, rex, 'placed')]);
      same(await pets.countByStatus(), { available: 0, pending: 2, sold: 1 });
    }),

    check('get of an id never assigned is undefined', async ({ orders, pets }) => {
      same(await orders.get(1), undefined);
      await orders.place(newOrder(await addPet(pets)));
      same(await orders.get(2), undefined);
      same(await orders.get(Number.MAX_SAFE_INTEGER), undefined);
    }),

    check('a transition applies when the status is one of from, moving the order and its pet together', async ({ orders, pets }) => {
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      same(await move(orders, 1, 'approve'), { kind: 'changed', order: orderOf(1, rex, 'approved') });
      same(await statusOfPet(pets, rex), 'pending');
      same(await move(orders, 1, 'deliver'), { kind: 'changed', order: orderOf(1, rex, 'delivered') });
      same(await orders.get(1), orderOf(1, rex, 'delivered'));
      same(await statusOfPet(pets, rex), 'sold');
      same(await pagedPets(pets, { afterId: 0, limit: 10, status: 'sold' }), [
        { id: rex, name: 'pet available', categoryId: 1, status: 'sold' },
      ]);
      // The pet's JSON, which a page joins as kept, moved with it.
      same(await pets.pageJson({ afterId: 0, limit: 10 }), {
        json: JSON.stringify([{ id: rex, name: 'pet available', categoryId: 1, status: 'sold' }]),
        moreAfter: undefined,
      });

      const tom = await addPet(pets);
      await orders.place(newOrder(tom));
      same(await move(orders, 2, 'cancel'), { kind: 'changed', order: orderOf(2, tom, 'cancelled') });
      same(await statusOfPet(pets, tom), 'available');
      // Available again: the pet can be ordered anew.
      same(await orders.place(newOrder(tom, BOB)), { kind: 'placed', order: orderOf(3, tom, 'placed', BOB) });
      like(await move(orders, 3, 'approve'), { kind: 'changed' });
      same(await move(orders, 3, 'cancel'), { kind: 'changed', order: orderOf(3, tom, 'cancelled', BOB) });
      same(await pets.countByStatus(), { available: 1, pending: 0, sold: 1 });
    }),

    check("a pet's status set directly leaves its order as it is, and the order's next move sets the pet's status as always", async ({ orders, pets }) => {
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      like(await pets.updateStatus(rex, 'sold'), { id: rex, status: 'sold' });
      same(await orders.get(1), orderOf(1, rex, 'placed'));
      same(await pets.countByStatus(), { available: 0, pending: 0, sold: 1 });
      same(await move(orders, 1, 'approve'), { kind: 'changed', order: orderOf(1, rex, 'approved') });
      same(await statusOfPet(pets, rex), 'pending');
      like(await pets.updateStatus(rex, 'available'), { status: 'available' });
      same(await move(orders, 1, 'cancel'), { kind: 'changed', order: orderOf(1, rex, 'cancelled') });
      same(await statusOfPet(pets, rex), 'available');
      same(await pets.countByStatus(), { available: 1, pending: 0, sold: 0 });
      same((await pagedPets(pets, { afterId: 0, limit: 10, status: 'available' })).length, 1);
      same(await pagedPets(pets, { afterId: 0, limit: 10, status: 'pending' }), []);
    }),

    check('a transition from another status is refused with the order as it is, and changes nothing', async ({ orders, pets }) => {
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      same(await move(orders, 1, 'deliver'), { kind: 'refused', order: orderOf(1, rex, 'placed') });
      same(await statusOfPet(pets, rex), 'pending');
      await move(orders, 1, 'cancel');
      for (const action of ['approve', 'deliver', 'cancel'] as const) {
        same(await move(orders, 1, action), { kind: 'refused', order: orderOf(1, rex, 'cancelled') });
      }
      // Exactly per `from`: an empty list refuses everything.
      same(await orders.transition(1, [], 'placed', 'pending'), { kind: 'refused', order: orderOf(1, rex, 'cancelled') });
      same(await statusOfPet(pets, rex), 'available');
      same(await orders.page({ afterId: 0, limit: 10, status: 'cancelled' }), [orderOf(1, rex, 'cancelled')]);
      same(await orders.page({ afterId: 0, limit: 10, status: 'placed' }), []);
    }),

    check('a transition of an unknown order is not found', async ({ orders, pets }) => {
      same(await move(orders, 1, 'cancel'), { kind: 'not_found' });
      await orders.place(newOrder(await addPet(pets)));
      same(await move(orders, 2, 'approve'), { kind: 'not_found' });
      same(await move(orders, Number.MAX_SAFE_INTEGER, 'approve'), { kind: 'not_found' });
    }),

    check('pages are ascending by id after afterId, by status, by owner and by both', async ({ orders, pets }) => {
      const owners = [ALICE, BOB, ALICE, ALICE, BOB, ALICE];
      for (const owner of owners) await orders.place(newOrder(await addPet(pets), owner));
      await move(orders, 2, 'approve');
      await move(orders, 3, 'cancel');
      await move(orders, 4, 'approve');
      await move(orders, 4, 'deliver');
      await move(orders, 6, 'approve');
      const ids = async (query: Partial<OrderPageQuery>): Promise<number[]> =>
        (await orders.page({ afterId: 0, limit: 10, ...query })).map((order) => order.id);
      same(await ids({}), [1, 2, 3, 4, 5, 6]);
      same(await ids({ afterId: 2, limit: 3 }), [3, 4, 5]);
      same(await ids({ status: 'approved' }), [2, 6]);
      same(await ids({ status: 'approved', afterId: 2 }), [6]);
      same(await ids({ status: 'placed' }), [1, 5]);
      same(await ids({ ownerId: ALICE }), [1, 3, 4, 6]);
      same(await ids({ ownerId: ALICE, afterId: 1, limit: 2 }), [3, 4]);
      same(await ids({ ownerId: BOB }), [2, 5]);
      same(await ids({ ownerId: ALICE, status: 'approved' }), [6]);
      same(await ids({ ownerId: BOB, status: 'approved' }), [2]);
      same(await ids({ ownerId: BOB, status: 'delivered' }), []);
      same(await ids({ ownerId: 'c'.repeat(64) }), []);
      same(await ids({ limit: 0 }), []);
      same(await ids({ afterId: Number.MAX_SAFE_INTEGER }), []);
      same(await orders.page({ afterId: 0, limit: 1, ownerId: BOB, status: 'placed' }), [orderOf(5, 5, 'placed', BOB)]);
    }),

    check('of 30 concurrent orders for one pet exactly one is placed', async ({ orders, pets }) => {
      const rex = await addPet(pets);
      const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => orders.place(newOrder(rex, `owner ${i}`))));
      same((outcomes.filter((outcome) => outcome.kind === 'placed')).length, 1);
      same((outcomes.filter((outcome) => outcome.kind === 'pet_unavailable')).length, 29);
      same((await orders.page({ afterId: 0, limit: 100 })).length, 1);
      same(await statusOfPet(pets, rex), 'pending');
    }),

    check('placements and transitions made together are each answered as if made alone, in the order they were made', async ({ orders, pets }) => {
      const [rex, tom, sold, kit] = [await addPet(pets), await addPet(pets), await addPet(pets, 'sold'), await addPet(pets)];
      const placed = await Promise.all([rex, 999, sold, tom, rex, kit].map((petId, i) => orders.place(newOrder(petId, `owner ${i}`))));
      same(placed.map((outcome) => outcome.kind), ['placed', 'pet_not_found', 'pet_unavailable', 'placed', 'pet_unavailable', 'placed']);
      const ids = placed.flatMap((outcome) => (outcome.kind === 'placed' ? [outcome.order.id] : []));
      same(placed.flatMap((outcome) => (outcome.kind === 'placed' ? [outcome.order.petId] : [])), [rex, tom, kit]);
      const [rexOrder = 0, tomOrder = 0, kitOrder = 0] = ids;
      const moved = await Promise.all([move(orders, rexOrder, 'cancel'), move(orders, 999, 'cancel'), move(orders, tomOrder, 'cancel'), move(orders, rexOrder, 'cancel'), move(orders, kitOrder, 'approve')]);
      same(moved.map((outcome) => outcome.kind), ['changed', 'not_found', 'changed', 'refused', 'changed']);
      same(moved[3], { kind: 'refused', order: await orders.get(rexOrder) });
      same([await statusOfPet(pets, rex), await statusOfPet(pets, tom), await statusOfPet(pets, kit)], ['available', 'available', 'pending']);
    }),

    check('of concurrent cancellations and deliveries of one order exactly one applies', async ({ orders, pets }) => {
      const rex = await addPet(pets);
      await orders.place(newOrder(rex));
      await move(orders, 1, 'approve');
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => move(orders, 1, i % 2 === 0 ? 'cancel' : 'deliver')));
      const changed = outcomes.filter((outcome) => outcome.kind === 'changed');
      same((changed).length, 1);
      const final = await orders.get(1);
      same(changed[0], { kind: 'changed', order: final });
      same(await statusOfPet(pets, rex), final?.status === 'delivered' ? 'sold' : 'available');
    }),

    check('place with a claim completes its Idempotency-Key record with the order as placed', async ({ orders, pets, fixture }) => {
      const rex = await addPet(pets);
      const claim = claimOf('order-rex', `POST /v1/store/orders {"petId":${rex}}`);
      same(await fixture.idempotency.begin(claim), { kind: 'started' });
      const placed = await orders.place(newOrder(rex), claim);
      same(placed, { kind: 'placed', order: orderOf(1, rex, 'placed') });
      await move(orders, 1, 'cancel');
      // The order as placed, not as it is now.
      same(await fixture.idempotency.begin(claim), { kind: 'replay', result: { kind: 'order', order: orderOf(1, rex, 'placed') } });
      // A refused order writes no record: its in-flight mark is still there to release.
      const refused = claimOf('order-unknown', 'POST /v1/store/orders {"petId":99}');
      await fixture.idempotency.begin(refused);
      same(await orders.place(newOrder(99), refused), { kind: 'pet_not_found' });
      like(await fixture.idempotency.begin(refused), { kind: 'in_flight' });
    }),

    check('neither the input nor a returned order can change what is stored', async ({ orders, pets }) => {
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
      same(await orders.get(1), orderOf(1, rex, 'placed'));
      same(await orders.page({ afterId: 0, limit: 10, ownerId: ALICE, status: 'placed' }), [orderOf(1, rex, 'placed')]);
    }),

    check('any sequence of places and transitions answers every get and page like a model', async () => {
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
                  same(await run.orders.place(newOrder(order.petId, order.ownerId)), expected);
                  if (expected.kind === 'placed') {
                    model.push(order);
                    petModel[step.pet] = 'pending';
                  }
                } else {
                  const current = model[step.order - 1];
                  const { from, to } = ORDER_TRANSITIONS[step.action];
                  const outcome = await move(run.orders, step.order, step.action);
                  if (current === undefined) same(outcome, { kind: 'not_found' });
                  else if (!(from as readonly OrderStatus[]).includes(current.status)) same(outcome, { kind: 'refused', order: current });
                  else {
                    const changed = { ...current, status: to };
                    same(outcome, { kind: 'changed', order: changed });
                    model[step.order - 1] = changed;
                    petModel[current.petId - 1] = PET_STATUS_OF_ORDER[to];
                  }
                }
              }
              for (const [index, status] of petModel.entries()) same(await statusOfPet(run.pets, index + 1), status);
              for (const { afterId, limit, status, owner } of queries) {
                const ownerId = owner === undefined ? undefined : owners[owner];
                const expected = model
                  .filter((order) => order.id > afterId && (status === undefined || order.status === status))
                  .filter((order) => ownerId === undefined || order.ownerId === ownerId)
                  .slice(0, limit);
                const query = { afterId, limit, ...(status === undefined ? {} : { status }), ...(ownerId === undefined ? {} : { ownerId }) };
                same(await run.orders.page(query), expected);
                same(await run.orders.get(afterId), model[afterId - 1]);
              }
            } finally {
              await run.cleanup();
            }
          },
        ),
        { numRuns: options.numRuns ?? 100 },
      );
    }),
  ];
};
