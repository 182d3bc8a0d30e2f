import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORDER_TRANSITIONS, PET_STATUS_OF_ORDER, type OrderAction } from '../../src/domain/orders/order-status-machine.js';
import { PET_STATUSES, type Pet, type PetStatus } from '../../src/domain/pets/pet.js';
import type { PetPageQuery, StoredPetPage } from '../../src/ports/pet-repository.js';
import { memoryStores, START } from './memory-stores-fixture.js';
import { runs } from '../support/property-runs.js';

const statusArb = fc.constantFrom(...PET_STATUSES);
const queryArb = fc
  .record({ afterId: fc.integer({ min: 0, max: 25 }), limit: fc.integer({ min: 1, max: 8 }), status: fc.option(statusArb, { nil: undefined }) })
  .map(({ afterId, limit, status }): PetPageQuery => ({ afterId, limit, ...(status === undefined ? {} : { status }) }));
const step = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), status: statusArb }),
  fc.record({ kind: fc.constant('update' as const), petId: fc.integer({ min: 1, max: 25 }), status: statusArb }),
  fc.record({ kind: fc.constant('place' as const), petId: fc.integer({ min: 1, max: 25 }) }),
  fc.record({
    kind: fc.constant('move' as const),
    orderId: fc.integer({ min: 1, max: 10 }),
    action: fc.constantFrom(...(Object.keys(ORDER_TRANSITIONS) as OrderAction[])),
  }),
  fc.record({ kind: fc.constant('read' as const), query: queryArb }),
);

describe('MemoryPetRepository pages', () => {
  it('a page read again after any create, status change or order transition shows the pets as they are now, never as kept before the write', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), fc.array(queryArb, { minLength: 1, maxLength: 4 }), async (steps, watched) => {
        const { pets, orders } = memoryStores();
        const model = new Map<number, Pet>();
        const expected = ({ afterId, limit, status }: PetPageQuery): StoredPetPage => {
          const matching = [...model.values()].filter((pet) => pet.id > afterId && (status === undefined || pet.status === status));
          const page = matching.slice(0, limit);
          return { json: JSON.stringify(page), moreAfter: matching.length > limit ? page.at(-1)?.id : undefined };
        };
        const setStatus = (id: number, status: PetStatus) => model.set(id, { ...model.get(id)!, status });
        // The watched pages are read, so kept, before every write and checked after it.
        const checkWatched = async () => {
          for (const query of watched) expect(await pets.pageJson(query)).toEqual(expected(query));
        };
        for (const next of steps) {
          await checkWatched();
          if (next.kind === 'create') {
            const pet = await pets.create({ name: `pet ${model.size}`, categoryId: 1, status: next.status });
            model.set(pet.id, pet);
          } else if (next.kind === 'update') {
            if ((await pets.updateStatus(next.petId, next.status)) !== undefined) setStatus(next.petId, next.status);
          } else if (next.kind === 'place') {
            const placed = await orders.place({ petId: next.petId, ownerId: 'owner', placedAt: new Date(START).toISOString() });
            if (placed.kind === 'placed') setStatus(next.petId, 'pending');
          } else if (next.kind === 'move') {
            const { from, to } = ORDER_TRANSITIONS[next.action];
            const moved = await orders.transition(next.orderId, from, to, PET_STATUS_OF_ORDER[to]);
            if (moved.kind === 'changed') setStatus(moved.order.petId, PET_STATUS_OF_ORDER[to]);
          } else {
            expect(await pets.pageJson(next.query)).toEqual(expected(next.query));
          }
          await checkWatched();
        }
      }),
      { numRuns: runs(300) },
    );
  });
});
