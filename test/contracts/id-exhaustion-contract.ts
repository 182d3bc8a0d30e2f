import { describe, expect, it } from 'vitest';
import { IdsExhaustedError } from '../../src/domain/errors.js';
import type { NewPet } from '../../src/domain/pets/pet.js';
import { claimOf, type StoresFixture } from './stores-fixture.js';

/** The stores with this many ids left to give to pets and to orders, no more. */
export type CreateStoresNearIdLimit = (left: { readonly pets: number; readonly orders: number }) => Promise<StoresFixture>;

const REX: NewPet = { name: 'Rex', categoryId: 1, status: 'available' };
const total = async ({ pets }: StoresFixture): Promise<number> => Object.values(await pets.countByStatus()).reduce((sum, count) => sum + count, 0);

/**
 * Ids run out (2^53-1, the largest integer a JSON client reads exactly): every create past the
 * last id is refused with IdsExhaustedError, stores nothing, and so does every create after it;
 * creates that still fit succeed, concurrent ones at the limit included.
 */
export function describeIdExhaustionContract(name: string, create: CreateStoresNearIdLimit): void {
  describe(`${name}: when ids run out`, () => {
    const using = async (left: { readonly pets: number; readonly orders: number }, test: (stores: StoresFixture) => Promise<void>): Promise<void> => {
      const stores = await create(left);
      try {
        await test(stores);
      } finally {
        await stores.cleanup();
      }
    };

    it('creates pets while ids are left, then refuses every create, keyed or not, storing nothing', () =>
      using({ pets: 2, orders: 2 }, async (stores) => {
        const [first, second] = [await stores.pets.create(REX), await stores.pets.create(REX)];
        expect(second.id).toBeGreaterThan(first.id);
        await expect(stores.pets.create(REX)).rejects.toBeInstanceOf(IdsExhaustedError);
        await expect(stores.pets.create(REX)).rejects.toBeInstanceOf(IdsExhaustedError);
        const claim = claimOf('past-the-end');
        expect(await stores.idempotency.begin(claim)).toEqual({ kind: 'started' });
        await expect(stores.pets.create(REX, claim)).rejects.toBeInstanceOf(IdsExhaustedError);
        expect(await total(stores)).toBe(2);
        expect(await stores.pets.get(second.id)).toEqual(second);
      }));

    it('of concurrent creates at the limit, exactly as many as ids are left succeed; the rest are refused', () =>
      using({ pets: 2, orders: 2 }, async (stores) => {
        const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => stores.pets.create(REX)));
        const created = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        expect(created).toHaveLength(2);
        for (const { reason } of refused) expect(reason).toBeInstanceOf(IdsExhaustedError);
        expect(await total(stores)).toBe(2);
      }));

    it('refuses a placement past the last order id, keyed or not, leaving its pet available; refusals stay what they were', () =>
      using({ pets: 10, orders: 1 }, async (stores) => {
        const placedAt = '2026-11-27T10:00:00.000Z';
        const [a, b, c] = [await stores.pets.create(REX), await stores.pets.create(REX), await stores.pets.create(REX)];
        expect((await stores.orders.place({ petId: a.id, ownerId: 'owner', placedAt })).kind).toBe('placed');
        await expect(stores.orders.place({ petId: b.id, ownerId: 'owner', placedAt })).rejects.toBeInstanceOf(IdsExhaustedError);
        const claim = claimOf('order-past-the-end', 'POST /v1/store/orders');
        expect(await stores.idempotency.begin(claim)).toEqual({ kind: 'started' });
        await expect(stores.orders.place({ petId: c.id, ownerId: 'owner', placedAt }, claim)).rejects.toBeInstanceOf(IdsExhaustedError);
        expect([(await stores.pets.get(b.id))?.status, (await stores.pets.get(c.id))?.status]).toEqual(['available', 'available']);
        expect(await stores.orders.place({ petId: a.id, ownerId: 'owner', placedAt })).toEqual({ kind: 'pet_unavailable' });
        expect(await stores.orders.place({ petId: c.id + 100, ownerId: 'owner', placedAt })).toEqual({ kind: 'pet_not_found' });
        await expect(stores.orders.page({ afterId: 0, limit: 10 })).resolves.toHaveLength(1);
      }));

    it('of concurrent placements at the limit, the one that fits is placed; the others refused, their pets available', () =>
      using({ pets: 10, orders: 1 }, async (stores) => {
        const placedAt = '2026-11-27T10:00:00.000Z';
        const pets = await Promise.all(Array.from({ length: 4 }, () => stores.pets.create(REX)));
        const outcomes = await Promise.allSettled(pets.map((pet) => stores.orders.place({ petId: pet.id, ownerId: 'owner', placedAt })));
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled').map((outcome) => outcome.value.kind)).toEqual(['placed']);
        for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(IdsExhaustedError);
        const statuses = await Promise.all(pets.map(async (pet) => (await stores.pets.get(pet.id))?.status));
        expect(statuses.filter((status) => status === 'available')).toHaveLength(3);
      }));
  });
}
