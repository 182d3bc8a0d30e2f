import { IdsExhaustedError } from '../domain/errors.js';
import type { NewPet } from '../domain/pets/pet.js';
import { atLeast, rejects, same } from './assertions.js';
import { checkOf, type ContractCheck } from './check.js';
import { claimOf, type StoresFixture } from './stores-fixture.js';

/** How many ids a fixture has left to give, to pets and to orders. */
export interface IdsLeft {
  readonly pets: number;
  readonly orders: number;
}

/**
 * The factory of the id-exhaustion contract: fresh, empty record stores whose last ids are near,
 * `left.pets` pet ids and `left.orders` order ids still to give and no more. A store on a real
 * counter sets it just below 2^53-1 (`MAX_ID - left.pets`: a Redis counter, a sequence restarted);
 * one that cannot reach 2^53 may stop at a last id of its own (the memory store takes `lastId`).
 */
export type CreateStoresNearIdLimit = (left: IdsLeft) => Promise<StoresFixture>;

const REX: NewPet = { name: 'Rex', categoryId: 1, status: 'available' };
const PLACED_AT = '2026-11-27T10:00:00.000Z';
/** What each rejected outcome was rejected with: `IdsExhaustedError`, or the other error as text, to be seen in a failure. */
const refusals = (outcomes: readonly PromiseSettledResult<unknown>[]): string[] =>
  outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [] : [outcome.reason instanceof IdsExhaustedError ? 'IdsExhaustedError' : String(outcome.reason)]));
const total = async ({ pets }: StoresFixture): Promise<number> => Object.values(await pets.countByStatus()).reduce((sum, count) => sum + count, 0);

/**
 * Ids run out (2^53-1, the largest integer a JSON client reads exactly): every create past the
 * last id is refused with IdsExhaustedError, stores nothing, and so does every create after it;
 * creates that still fit succeed, concurrent ones at the limit included.
 */
export const idExhaustionChecks = (create: CreateStoresNearIdLimit): ContractCheck[] => {
  const check = (name: string, left: IdsLeft, body: (stores: StoresFixture) => Promise<void>): ContractCheck => checkOf(name, () => create(left), body);
  return [
    check('creates pets while ids are left, then refuses every create, keyed or not, storing nothing', { pets: 2, orders: 2 }, async (stores) => {
      const [first, second] = [await stores.pets.create(REX), await stores.pets.create(REX)];
      atLeast(second.id, first.id + 1, 'the second pet\'s id');
      await rejects(stores.pets.create(REX), IdsExhaustedError);
      await rejects(stores.pets.create(REX), IdsExhaustedError);
      const claim = claimOf('past-the-end');
      same(await stores.idempotency.begin(claim), { kind: 'started' });
      await rejects(stores.pets.create(REX, claim), IdsExhaustedError);
      same(await total(stores), 2);
      same(await stores.pets.get(second.id), second);
    }),
    check('of concurrent creates at the limit, exactly as many as ids are left succeed; the rest are refused', { pets: 2, orders: 2 }, async (stores) => {
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => stores.pets.create(REX)));
      same(refusals(outcomes), Array<string>(4).fill('IdsExhaustedError'), 'the creates past the last id');
      same(await total(stores), 2);
    }),
    check('refuses a placement past the last order id, keyed or not, leaving its pet available; refusals stay what they were', { pets: 10, orders: 1 }, async (stores) => {
      const [a, b, c] = [await stores.pets.create(REX), await stores.pets.create(REX), await stores.pets.create(REX)];
      same((await stores.orders.place({ petId: a.id, ownerId: 'owner', placedAt: PLACED_AT })).kind, 'placed');
      await rejects(stores.orders.place({ petId: b.id, ownerId: 'owner', placedAt: PLACED_AT }), IdsExhaustedError);
      const claim = claimOf('order-past-the-end', 'POST /v1/store/orders');
      same(await stores.idempotency.begin(claim), { kind: 'started' });
      await rejects(stores.orders.place({ petId: c.id, ownerId: 'owner', placedAt: PLACED_AT }, claim), IdsExhaustedError);
      same([(await stores.pets.get(b.id))?.status, (await stores.pets.get(c.id))?.status], ['available', 'available']);
      same(await stores.orders.place({ petId: a.id, ownerId: 'owner', placedAt: PLACED_AT }), { kind: 'pet_unavailable' });
      same(await stores.orders.place({ petId: c.id + 100, ownerId: 'owner', placedAt: PLACED_AT }), { kind: 'pet_not_found' });
      same((await stores.orders.page({ afterId: 0, limit: 10 })).length, 1, 'orders stored');
    }),
    check('of concurrent placements at the limit, the one that fits is placed; the others refused, their pets available', { pets: 10, orders: 1 }, async (stores) => {
      const pets = await Promise.all(Array.from({ length: 4 }, () => stores.pets.create(REX)));
      const outcomes = await Promise.allSettled(pets.map((pet) => stores.orders.place({ petId: pet.id, ownerId: 'owner', placedAt: PLACED_AT })));
      same(outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.kind] : [])), ['placed']);
      same(refusals(outcomes), Array<string>(3).fill('IdsExhaustedError'), 'the placements past the last id');
      const statuses = await Promise.all(pets.map(async (pet) => (await stores.pets.get(pet.id))?.status));
      same(statuses.filter((status) => status === 'available').length, 3, 'pets left available');
    }),
  ];
};
