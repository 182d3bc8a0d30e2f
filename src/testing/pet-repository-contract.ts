import fc from 'fast-check';
import { validateNewPet } from '../domain/pets/new-pet-validation.js';
import { PET_STATUSES, type NewPet, type Pet, type PetStatus } from '../domain/pets/pet.js';
import type { PetPageQuery, PetRepository, StoredPetPage } from '../ports/pet-repository.js';
import { claimOf, pagedPets, type CreateStores, type StoresFixture } from './stores-fixture.js';
import { same } from './assertions.js';
import { checkOf, type ContractCheck, type ContractOptions, type Disposable } from './check.js';

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
 * The behaviour every PetRepository shares: one check per rule. `create` must give fresh, empty
 * stores (ids start at 1), with the idempotency store its creates complete, and `cleanup` must
 * release them.
 */
export const petRepositoryChecks = (create: CreateStores, options: ContractOptions = {}): ContractCheck[] => {
  interface Context extends Disposable {
    readonly fixture: StoresFixture;
    readonly repository: PetRepository;
  }
  const setup = async (): Promise<Context> => {
    const fixture = await create();
    return { fixture, repository: fixture.pets, cleanup: async () => fixture.cleanup() };
  };
  const check = (name: string, body: (context: Context) => Promise<void>): ContractCheck => checkOf(name, setup, body);

  return [
    check('any name the domain accepts comes back in a JSON page byte for byte as JSON.stringify writes it', async ({ repository }) => {
      const accepted = fc
        .string({ unit: fc.oneof(fc.constantFrom('"', '\\', '/', '\u2028', '\u2029', '\u007f', '\u00a0', '\ufeff', '🐈', 'é'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), minLength: 1, maxLength: 40 })
        .filter((name) => validateNewPet({ name, categoryId: 1 }).ok);
      // The runs share one repository: each pages from the last id the run before it created (reading
      // every pet again for each run made the property quadratic, 48 s of 2,000 runs on memory).
      let afterId = (await pageAll(repository, 100)).at(-1)?.id ?? 0;
      await fc.assert(
        fc.asyncProperty(fc.array(accepted, { minLength: 1, maxLength: 5 }), async (names) => {
          const from = afterId;
          const created: Pet[] = [];
          for (const name of names) created.push(await repository.create(newPet(name)));
          afterId = created.at(-1)?.id ?? afterId;
          const page = await repository.pageJson({ afterId: from, limit: names.length });
          same(page.json, JSON.stringify(created));
        }),
        { numRuns: options.numRuns ?? 100 },
      );
    }),

    check('a fresh repository assigns ids increasing from 1 and keeps the fields as given', async ({ repository }) => {
      const created = [
        await repository.create(newPet('Rex', 'available', 7)),
        await repository.create(newPet('Tom', 'sold', 9_007_199_254_740_991)),
        await repository.create(newPet('Émile 🐈', 'pending', 3)),
      ];
      same(created, [
        { id: 1, name: 'Rex', categoryId: 7, status: 'available' },
        { id: 2, name: 'Tom', categoryId: 9_007_199_254_740_991, status: 'sold' },
        { id: 3, name: 'Émile 🐈', categoryId: 3, status: 'pending' },
      ]);
      for (const pet of created) same(await repository.get(pet.id), pet);
    }),

    check('get of an id never assigned is undefined', async ({ repository }) => {
      same(await repository.get(1), undefined);
      await repository.create(newPet('Rex'));
      same(await repository.get(2), undefined);
      same(await repository.get(Number.MAX_SAFE_INTEGER), undefined);
    }),

    check('a page is ascending by id and holds at most limit pets', async ({ repository }) => {
      for (const name of ['a', 'b', 'c', 'd', 'e']) await repository.create(newPet(name));
      same((await pagedPets(repository, { afterId: 0, limit: 3 })).map((pet) => pet.id), [1, 2, 3]);
      same((await pagedPets(repository, { afterId: 0, limit: 10 })).map((pet) => pet.id), [1, 2, 3, 4, 5]);
      same(await pagedPets(repository, { afterId: 0, limit: 0 }), []);
      same(await repository.pageJson({ afterId: 0, limit: 0 }), { json: '[]', moreAfter: undefined });
      same(await repository.pageJson({ afterId: 5, limit: 10 }), { json: '[]', moreAfter: undefined });
    }),

    check('a page filtered by status holds only pets of that status, ascending by id', async ({ repository }) => {
      const statuses: PetStatus[] = ['sold', 'available', 'sold', 'pending', 'sold', 'available'];
      for (const [index, status] of statuses.entries()) await repository.create(newPet(`pet ${index}`, status));
      same((await pagedPets(repository, { afterId: 0, limit: 10, status: 'sold' })).map((pet) => pet.id), [1, 3, 5]);
      same((await pagedPets(repository, { afterId: 0, limit: 10, status: 'available' })).map((pet) => pet.id), [2, 6]);
      same((await pagedPets(repository, { afterId: 0, limit: 10, status: 'pending' })).map((pet) => pet.id), [4]);
      same((await pagedPets(repository, { afterId: 0, limit: 2, status: 'sold' })).map((pet) => pet.id), [1, 3]);
    }),

    check('a page holds only pets with an id strictly greater than afterId', async ({ repository }) => {
      const statuses: PetStatus[] = ['sold', 'available', 'sold', 'pending', 'sold'];
      for (const [index, status] of statuses.entries()) await repository.create(newPet(`pet ${index}`, status));
      same((await pagedPets(repository, { afterId: 2, limit: 10 })).map((pet) => pet.id), [3, 4, 5]);
      // afterId need not be a pet of the filtered status.
      same((await pagedPets(repository, { afterId: 2, limit: 10, status: 'sold' })).map((pet) => pet.id), [3, 5]);
      same((await pagedPets(repository, { afterId: 3, limit: 1, status: 'sold' })).map((pet) => pet.id), [5]);
      same(await pagedPets(repository, { afterId: 5, limit: 10 }), []);
      same(await pagedPets(repository, { afterId: Number.MAX_SAFE_INTEGER, limit: 10 }), []);
      same(await pagedPets(repository, { afterId: 5, limit: 10, status: 'pending' }), []);
    }),

    check('200 concurrent creates get 200 distinct ids, and paging afterwards yields each pet exactly once', async ({ repository }) => {
      const statusOf = (index: number): PetStatus => PET_STATUSES[index % PET_STATUSES.length] ?? 'available';
      const created = await Promise.all(
        Array.from({ length: 200 }, (_, index) => repository.create(newPet(`pet ${index}`, statusOf(index)))),
      );
      const ids = created.map((pet) => pet.id);
      same(new Set(ids).size, 200);
      same([...ids].sort((a, b) => a - b), Array.from({ length: 200 }, (_, index) => index + 1));

      const byId = (a: Pet, b: Pet): number => a.id - b.id;
      same(await pageAll(repository, 7), [...created].sort(byId));
      for (const status of PET_STATUSES) {
        same(await pageAll(repository, 11, status), created.filter((pet) => pet.status === status).sort(byId));
      }
    }),

    check('neither the input, nor a returned pet, nor a returned page can change what is stored', async ({ repository }) => {
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
      same(await repository.get(1), expected);
      same(await pagedPets(repository, { afterId: 0, limit: 10 }), [expected]);
      same(await pagedPets(repository, { afterId: 0, limit: 10, status: 'pending' }), [expected]);
    }),

    check('counts the pets of each status, zero for a status no pet has', async ({ repository }) => {
      same(await repository.countByStatus(), { available: 0, pending: 0, sold: 0 });
      const statuses: PetStatus[] = ['sold', 'available', 'sold', 'sold', 'available'];
      for (const [index, status] of statuses.entries()) await repository.create(newPet(`pet ${index}`, status));
      same(await repository.countByStatus(), { available: 2, pending: 0, sold: 3 });
    }),

    check('updateStatus moves a pet to any status in one step: the pet, every page and the counts follow', async ({ repository }) => {
      const statuses: PetStatus[] = ['available', 'pending', 'sold', 'available'];
      for (const [index, status] of statuses.entries()) await repository.create(newPet(`pet ${index}`, status, index + 1));
      same(await repository.updateStatus(1, 'sold'), { id: 1, name: 'pet 0', categoryId: 1, status: 'sold' });
      same(await repository.updateStatus(3, 'pending'), { id: 3, name: 'pet 2', categoryId: 3, status: 'pending' });
      // To the status it has: changes nothing, answers the pet.
      same(await repository.updateStatus(2, 'pending'), { id: 2, name: 'pet 1', categoryId: 2, status: 'pending' });
      same(await repository.get(1), { id: 1, name: 'pet 0', categoryId: 1, status: 'sold' });
      same(await repository.countByStatus(), { available: 1, pending: 2, sold: 1 });
      same((await pagedPets(repository, { afterId: 0, limit: 10, status: 'available' })).map((pet) => pet.id), [4]);
      same((await pagedPets(repository, { afterId: 0, limit: 10, status: 'pending' })).map((pet) => pet.id), [2, 3]);
      same((await pagedPets(repository, { afterId: 0, limit: 10, status: 'sold' })).map((pet) => pet.id), [1]);
      same((await pagedPets(repository, { afterId: 0, limit: 10 })).map((pet) => pet.status), ['sold', 'pending', 'pending', 'available']);
    }),

    check('updateStatus of an id never assigned is undefined, and changes nothing', async ({ repository }) => {
      await repository.create(newPet('Rex'));
      same(await repository.updateStatus(2, 'sold'), undefined);
      same(await repository.updateStatus(Number.MAX_SAFE_INTEGER, 'sold'), undefined);
      same(await repository.countByStatus(), { available: 1, pending: 0, sold: 0 });
      same(await pagedPets(repository, { afterId: 0, limit: 10, status: 'sold' }), []);
    }),

    check('concurrent status changes of many pets keep every index and count exact', async ({ repository }) => {
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
      same(pets.map((pet) => pet.status), expected);
      const counts = { available: 0, pending: 0, sold: 0 };
      for (const status of expected) counts[status] += 1;
      same(await repository.countByStatus(), counts);
      for (const status of PET_STATUSES) same(await pageAll(repository, 4, status), pets.filter((pet) => pet.status === status));
    }),

    check('create with a claim completes its Idempotency-Key record with the pet as created, in the same step', async ({ repository, fixture }) => {
      const claim = claimOf('create-rex');
      same(await fixture.idempotency.begin(claim), { kind: 'started' });
      const created = await repository.create(newPet('Rex', 'sold', 12), claim);
      same(await fixture.idempotency.begin(claim), { kind: 'replay', result: { kind: 'pet', pet: created } });
      // Without a begin before it (its mark expired meanwhile) the record is written all the same.
      const unmarked = claimOf('create-tom');
      const tom = await repository.create(newPet('Tom'), unmarked);
      same(await fixture.idempotency.begin(unmarked), { kind: 'replay', result: { kind: 'pet', pet: tom } });
      same(await repository.countByStatus(), { available: 1, pending: 0, sold: 1 });
    }),

    check('any sequence of creates answers every get and page like a list sorted by id, and every JSON page as JSON.stringify of that page', async () => {
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
              same(pet, { id: model.length + 1, name, categoryId: index + 1, status });
              model.push(pet);
            }
            const counts = { available: 0, pending: 0, sold: 0 };
            for (const pet of model) counts[pet.status] += 1;
            same(await run.pets.countByStatus(), counts);
            const asked = queries.map(({ afterId, limit, status }): PetPageQuery => ({ afterId, limit, ...(status === undefined ? {} : { status }) }));
            const pageOf = ({ afterId, limit, status }: PetPageQuery): StoredPetPage => {
              const matching = model.filter((pet) => pet.id > afterId && (status === undefined || pet.status === status));
              const expected = matching.slice(0, limit);
              return { json: JSON.stringify(expected), moreAfter: matching.length > limit ? expected.at(-1)?.id : undefined };
            };
            for (const query of asked) {
              same(await pagedPets(run.pets, query), JSON.parse(pageOf(query).json));
              same(await run.pets.pageJson(query), pageOf(query));
              same(await run.pets.get(query.afterId), model[query.afterId - 1]);
            }
            // Asked all at once, each twice (one turn: one batch where a store batches its reads), each page as when asked alone.
            const together = [...asked, ...asked];
            same(await Promise.all(together.map((query) => run.pets.pageJson(query))), together.map(pageOf));
          } finally {
            await run.cleanup();
          }
        }),
        { numRuns: options.numRuns ?? 100 },
      );
    }),
  ];
};
