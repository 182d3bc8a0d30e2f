import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateNewPet } from '../../src/domain/pets/new-pet-validation.js';
import { PET_STATUSES, type NewPet, type Pet, type PetStatus } from '../../src/domain/pets/pet.js';
import type { PetPageQuery, PetRepository, StoredPetPage } from '../../src/ports/pet-repository.js';
import { claimOf, pagedPets, type CreateStores, type StoresFixture } from './stores-fixture.js';
import { runs } from '../support/property-runs.js';

export interface PetRepositoryContractOptions {
  /** Runs of the model-based property; each run creates a fresh repository. */
  readonly numRuns?: number;
}

const newPet = (name: string, status: PetStatus = 'available', categoryId = 1): NewPet => ({ name, categoryId, status });

/** Runs a mutation that a frozen object refuses with a TypeError; either way the store must not change. */
const attempt = (mutation: () => void): void => {
  try {
    mutation();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
};

const pageAll = async (repository: PetRepository, limit: number, status?: PetStatus): Promise<Pet[]> => {
  const filter = status === undefined ? {} : { status };
  const seen: Pet[] = [];
  for (;;) {
    const afterId = seen.at(-1)?.id ?? 0;
    const page = await pagedPets(repository, { afterId, limit, ...filter });
    // Checked here, not only at the end: a page that does not advance would loop forever.
    if (page.some((pet) => pet.id <= afterId)) throw new Error(`page after ${afterId} holds an id not above it`);
    seen.push(...page);
    if (page.length < limit) return seen;
  }
};

/**
 * The behaviour every PetRepository adapter shares. `create` must give fresh, empty stores
 * (ids start at 1) and `cleanup` must release them.
 */
export const describePetRepositoryContract = (
  adapterName: string,
  create: CreateStores,
  options: PetRepositoryContractOptions = {},
): void => {
  describe(`${adapterName} fulfils the PetRepository contract`, () => {
    let fixture: StoresFixture;
    let repository: PetRepository;

    beforeEach(async () => {
      fixture = await create();
      repository = fixture.pets;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('any name the domain accepts comes back in a JSON page byte for byte as JSON.stringify writes it', async () => {
      const accepted = fc
        .string({ unit: fc.oneof(fc.constantFrom('"', '\\', '/', '\u2028', '\u2029', '\u007f', '\u00a0', '\ufeff', '🐈', 'é'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), minLength: 1, maxLength: 40 })
        .filter((name) => validateNewPet({ name, categoryId: 1 }).ok);
      await fc.assert(
        fc.asyncProperty(fc.array(accepted, { minLength: 1, maxLength: 5 }), async (names) => {
          const afterId = (await pageAll(repository, 100)).at(-1)?.id ?? 0;
          const created: Pet[] = [];
          for (const name of names) created.push(await repository.create(newPet(name)));
          const page = await repository.pageJson({ afterId, limit: names.length });
          expect(page.json).toBe(JSON.stringify(created));
        }),
        { numRuns: options.numRuns ?? runs(100) },
      );
    });

    it('a fresh repository assigns ids increasing from 1 and keeps the fields as given', async () => {
      const created = [
        await repository.create(newPet('Rex', 'available', 7)),
        await repository.create(newPet('Tom', 'sold', 9_007_199_254_740_991)),
        await repository.create(newPet('Émile 🐈', 'pending', 3)),
      ];
      expect(created).toEqual([
        { id: 1, name: 'Rex', categoryId: 7, status: 'available' },
        { id: 2, name: 'Tom', categoryId: 9_007_199_254_740_991, status: 'sold' },
        { id: 3, name: 'Émile 🐈', categoryId: 3, status: 'pending' },
      ]);
      for (const pet of created) expect(await repository.get(pet.id)).toEqual(pet);
    });

    it('get of an id never assigned is undefined', async () => {
      expect(await repository.get(1)).toBeUndefined();
      await repository.create(newPet('Rex'));
      expect(await repository.get(2)).toBeUndefined();
      expect(await repository.get(Number.MAX_SAFE_INTEGER)).toBeUndefined();
    });

    it('a page is ascending by id and holds at most limit pets', async () => {
      for (const name of ['a', 'b', 'c', 'd', 'e']) await repository.create(newPet(name));
      expect((await pagedPets(repository, { afterId: 0, limit: 3 })).map((pet) => pet.id)).toEqual([1, 2, 3]);
      expect((await pagedPets(repository, { afterId: 0, limit: 10 })).map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5]);
      expect(await pagedPets(repository, { afterId: 0, limit: 0 })).toEqual([]);
      expect(await repository.pageJson({ afterId: 0, limit: 0 })).toEqual({ json: '[]', moreAfter: undefined });
      expect(await repository.pageJson({ afterId: 5, limit: 10 })).toEqual({ json: '[]', moreAfter: undefined });
    });

    it('a page filtered by status holds only pets of that status, ascending by id', async () => {
      const statuses: PetStatus[] = ['sold', 'available', 'sold', 'pending', 'sold', 'available'];
      for (const [index, status] of statuses.entries()) await repository.create(newPet(`pet ${index}`, status));
      expect((await pagedPets(repository, { afterId: 0, limit: 10, status: 'sold' })).map((pet) => pet.id)).toEqual([1, 3, 5]);
      expect((await pagedPets(repository, { afterId: 0, limit: 10, status: 'available' })).map((pet) => pet.id)).toEqual([2, 6]);
      expect((await pagedPets(repository, { afterId: 0, limit: 10, status: 'pending' })).map((pet) => pet.id)).toEqual([4]);
      expect((await pagedPets(repository, { afterId: 0, limit: 2, status: 'sold' })).map((pet) => pet.id)).toEqual([1, 3]);
    });

    it('a page holds only pets with an id strictly greater than afterId', async () => {
      const statuses: PetStatus[] = ['sold', 'available', 'sold', 'pending', 'sold'];
      for (const [index, status] of statuses.entries()) await repository.create(newPet(`pet ${index}`, status));
      expect((await pagedPets(repository, { afterId: 2, limit: 10 })).map((pet) => pet.id)).toEqual([3, 4, 5]);
      // afterId need not be a pet of the filtered status.
      expect((await pagedPets(repository, { afterId: 2, limit: 10, status: 'sold' })).map((pet) => pet.id)).toEqual([3, 5]);
      expect((await pagedPets(repository, { afterId: 3, limit: 1, status: 'sold' })).map((pet) => pet.id)).toEqual([5]);
      expect(await pagedPets(repository, { afterId: 5, limit: 10 })).toEqual([]);
      expect(await pagedPets(repository, { afterId: Number.MAX_SAFE_INTEGER, limit: 10 })).toEqual([]);
      expect(await pagedPets(repository, { afterId: 5, limit: 10, status: 'pending' })).toEqual([]);
    });

    it('200 concurrent creates get 200 distinct ids, and paging afterwards yields each pet exactly once', async () => {
      const statusOf = (index: number): PetStatus => PET_STATUSES[index % PET_STATUSES.length] ?? 'available';
      const created = await Promise.all(
        Array.from({ length: 200 }, (_, index) => repository.create(newPet(`pet ${index}`, statusOf(index)))),
      );
      const ids = created.map((pet) => pet.id);
      expect(new Set(ids).size).toBe(200);
      expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));

      const byId = (a: Pet, b: Pet): number => a.id - b.id;
      expect(await pageAll(repository, 7)).toEqual([...created].sort(byId));
      for (const status of PET_STATUSES) {
        expect(await pageAll(repository, 11, status)).toEqual(created.filter((pet) => pet.status === status).sort(byId));
      }
    });

    it('neither the input, nor a returned pet, nor a returned page can change what is stored', async () => {
      const input = { name: 'Rex', categoryId: 4, status: 'pending' as PetStatus };
      const created = await repository.create(input);
      input.name = 'changed';
      attempt(() => {
        (created as { name: string }).name = 'changed';
      });
      const fetched = await repository.get(1);
      attempt(() => {
        (fetched as { status: string }).status = 'sold';
      });
      const page = await pagedPets(repository, { afterId: 0, limit: 10 });
      attempt(() => {
        (page[0] as { categoryId: number }).categoryId = 99;
      });
      attempt(() => {
        (page as Pet[]).pop();
      });

      const expected = { id: 1, name: 'Rex', categoryId: 4, status: 'pending' };
      expect(await repository.get(1)).toEqual(expected);
      expect(await pagedPets(repository, { afterId: 0, limit: 10 })).toEqual([expected]);
      expect(await pagedPets(repository, { afterId: 0, limit: 10, status: 'pending' })).toEqual([expected]);
    });

    it('counts the pets of each status, zero for a status no pet has', async () => {
      expect(await repository.countByStatus()).toEqual({ available: 0, pending: 0, sold: 0 });
      const statuses: PetStatus[] = ['sold', 'available', 'sold', 'sold', 'available'];
      for (const [index, status] of statuses.entries()) await repository.create(newPet(`pet ${index}`, status));
      expect(await repository.countByStatus()).toEqual({ available: 2, pending: 0, sold: 3 });
    });

    it('updateStatus moves a pet to any status in one step: the pet, every page and the counts follow', async () => {
      const statuses: PetStatus[] = ['available', 'pending', 'sold', 'available'];
      for (const [index, status] of statuses.entries()) await repository.create(newPet(`pet ${index}`, status, index + 1));
      expect(await repository.updateStatus(1, 'sold')).toEqual({ id: 1, name: 'pet 0', categoryId: 1, status: 'sold' });
      expect(await repository.updateStatus(3, 'pending')).toEqual({ id: 3, name: 'pet 2', categoryId: 3, status: 'pending' });
      // To the status it has: changes nothing, answers the pet.
      expect(await repository.updateStatus(2, 'pending')).toEqual({ id: 2, name: 'pet 1', categoryId: 2, status: 'pending' });
      expect(await repository.get(1)).toEqual({ id: 1, name: 'pet 0', categoryId: 1, status: 'sold' });
      expect(await repository.countByStatus()).toEqual({ available: 1, pending: 2, sold: 1 });
      expect((await pagedPets(repository, { afterId: 0, limit: 10, status: 'available' })).map((pet) => pet.id)).toEqual([4]);
      expect((await pagedPets(repository, { afterId: 0, limit: 10, status: 'pending' })).map((pet) => pet.id)).toEqual([2, 3]);
      expect((await pagedPets(repository, { afterId: 0, limit: 10, status: 'sold' })).map((pet) => pet.id)).toEqual([1]);
      expect((await pagedPets(repository, { afterId: 0, limit: 10 })).map((pet) => pet.status)).toEqual(['sold', 'pending', 'pending', 'available']);
    });

    it('updateStatus of an id never assigned is undefined, and changes nothing', async () => {
      await repository.create(newPet('Rex'));
      expect(await repository.updateStatus(2, 'sold')).toBeUndefined();
      expect(await repository.updateStatus(Number.MAX_SAFE_INTEGER, 'sold')).toBeUndefined();
      expect(await repository.countByStatus()).toEqual({ available: 1, pending: 0, sold: 0 });
      expect(await pagedPets(repository, { afterId: 0, limit: 10, status: 'sold' })).toEqual([]);
    });

    it('concurrent status changes of many pets keep every index and count exact', async () => {
      const statusOf = (index: number): PetStatus => PET_STATUSES[index % PET_STATUSES.length] ?? 'available';
      for (let index = 0; index < 30; index++) await repository.create(newPet(`pet ${index}`, statusOf(index)));
      // Two rounds, each changing every pet once, all at the same time.
      const expected: PetStatus[] = [];
      for (const round of [1, 2]) {
        const changes = Array.from({ length: 30 }, (_, index) => statusOf(index * round + round));
        await Promise.all(changes.map((status, index) => repository.updateStatus(index + 1, status)));
        expected.splice(0, 30, ...changes);
      }
      const pets = await pageAll(repository, 7);
      expect(pets.map((pet) => pet.status)).toEqual(expected);
      const counts = { available: 0, pending: 0, sold: 0 };
      for (const status of expected) counts[status] += 1;
      expect(await repository.countByStatus()).toEqual(counts);
      for (const status of PET_STATUSES) expect(await pageAll(repository, 4, status)).toEqual(pets.filter((pet) => pet.status === status));
    });

    it('create with a claim completes its Idempotency-Key record with the pet as created, in the same step', async () => {
      const claim = claimOf('create-rex');
      expect(await fixture.idempotency.begin(claim)).toEqual({ kind: 'started' });
      const created = await repository.create(newPet('Rex', 'sold', 12), claim);
      expect(await fixture.idempotency.begin(claim)).toEqual({ kind: 'replay', result: { kind: 'pet', pet: created } });
      // Without a begin before it (its mark expired meanwhile) the record is written all the same.
      const unmarked = claimOf('create-tom');
      const tom = await repository.create(newPet('Tom'), unmarked);
      expect(await fixture.idempotency.begin(unmarked)).toEqual({ kind: 'replay', result: { kind: 'pet', pet: tom } });
      expect(await repository.countByStatus()).toEqual({ available: 1, pending: 0, sold: 1 });
    });

    it('any sequence of creates answers every get and page like a list sorted by id, and every JSON page as JSON.stringify of that page', async () => {
      const statusArb = fc.constantFrom(...PET_STATUSES);
      const queryArb = fc.record({
        afterId: fc.integer({ min: 0, max: 40 }),
        limit: fc.integer({ min: 1, max: 12 }),
        status: fc.option(statusArb, { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(statusArb, { maxLength: 30 }), fc.array(queryArb, { maxLength: 8 }), async (statuses, queries) => {
          const run = await create();
          try {
            const model: Pet[] = [];
            for (const [index, status] of statuses.entries()) {
              // Names JSON must escape, and characters it keeps as they are.
              const name = `pet "${index}" \\ é 🐈 \u0001`;
              const pet = await run.pets.create(newPet(name, status, index + 1));
              expect(pet).toEqual({ id: model.length + 1, name, categoryId: index + 1, status });
              model.push(pet);
            }
            const counts = { available: 0, pending: 0, sold: 0 };
            for (const pet of model) counts[pet.status] += 1;
            expect(await run.pets.countByStatus()).toEqual(counts);
            const asked = queries.map(({ afterId, limit, status }): PetPageQuery => ({ afterId, limit, ...(status === undefined ? {} : { status }) }));
            const pageOf = ({ afterId, limit, status }: PetPageQuery): StoredPetPage => {
              const matching = model.filter((pet) => pet.id > afterId && (status === undefined || pet.status === status));
              const expected = matching.slice(0, limit);
              return { json: JSON.stringify(expected), moreAfter: matching.length > limit ? expected.at(-1)?.id : undefined };
            };
            for (const query of asked) {
              expect(await pagedPets(run.pets, query)).toEqual(JSON.parse(pageOf(query).json));
              expect(await run.pets.pageJson(query)).toEqual(pageOf(query));
              expect(await run.pets.get(query.afterId)).toEqual(model[query.afterId - 1]);
            }
            // Asked all at once, each twice (one turn: one batch where a store batches its reads), each page as when asked alone.
            const together = [...asked, ...asked];
            expect(await Promise.all(together.map((query) => run.pets.pageJson(query)))).toEqual(together.map(pageOf));
          } finally {
            await run.cleanup();
          }
        }),
        { numRuns: options.numRuns ?? runs(100) },
      );
    });
  });
};
