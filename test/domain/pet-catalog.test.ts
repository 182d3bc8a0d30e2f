import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import type { Caller } from '../../src/domain/access/caller.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../../src/domain/paging/page-limits.js';
import { MAX_ID, PET_STATUSES, type Pet, type PetStatus } from '../../src/domain/pets/pet.js';
import { PetCatalog, type ListPetsQuery, type PetPage } from '../../src/domain/pets/pet-catalog.js';
import { petCursors } from '../../src/domain/pets/pet-cursor.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';
import { untyped } from '../support/untyped.js';
import { runs } from '../support/property-runs.js';

const STAFF: Caller = { id: 'staff', role: 'staff' };
const CUSTOMER: Caller = { id: 'customer', role: 'customer' };

const catalogWith = async (statuses: readonly PetStatus[]): Promise<{ catalog: PetCatalog; pets: Pet[] }> => {
  const repository = new MemoryPetRepository();
  const pets: Pet[] = [];
  for (const [index, status] of statuses.entries()) pets.push(await repository.create({ name: `pet ${index}`, categoryId: 1, status }));
  return { catalog: new PetCatalog(repository), pets };
};

const pageOf = async (catalog: PetCatalog, query: ListPetsQuery): Promise<PetPage> => {
  const result = await catalog.list(query);
  if (!result.ok) throw new Error(`expected a page, got ${result.error.message}`);
  return result.value;
};

const fieldOfError = async (outcome: Promise<{ ok: true } | { ok: false; error: { field?: string } }>): Promise<string | undefined> => {
  const result = await outcome;
  return result.ok ? undefined : result.error.field;
};

const statusFilterArb = fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined });
const withStatus = (status: PetStatus | undefined): ListPetsQuery => (status === undefined ? {} : { status });

describe('PetCatalog.list', () => {
  it(`returns at most ${DEFAULT_PAGE_LIMIT} pets when no limit is given, ascending by id`, async () => {
    const { catalog, pets } = await catalogWith(Array.from({ length: 25 }, () => 'available' as const));
    const page = await pageOf(catalog, {});
    expect(page.pets).toEqual(pets.slice(0, DEFAULT_PAGE_LIMIT));
    expect(page.next).toEqual({ cursor: petCursors.encode({ afterId: DEFAULT_PAGE_LIMIT }), limit: DEFAULT_PAGE_LIMIT });
    expect(await pageOf(catalog, untyped({ cursor: page.next?.cursor }))).toEqual({ pets: pets.slice(DEFAULT_PAGE_LIMIT) });
  });

  it('announces a next page only when one more matching pet exists', async () => {
    const { catalog } = await catalogWith(['sold', 'available', 'sold', 'available']);
    expect((await pageOf(catalog, { limit: 2, status: 'sold' })).next).toBeUndefined();
    expect((await pageOf(catalog, { limit: 4 })).next).toBeUndefined();
    expect((await pageOf(catalog, { limit: 3 })).next).toEqual({ cursor: petCursors.encode({ afterId: 3 }), limit: 3 });
    expect((await pageOf(catalog, { limit: 1, status: 'sold' })).next).toEqual({
      cursor: petCursors.encode({ afterId: 1, status: 'sold' }),
      limit: 1,
      status: 'sold',
    });
  });

  it('an empty store gives an empty first page without next', async () => {
    const { catalog } = await catalogWith([]);
    expect(await pageOf(catalog, {})).toEqual({ pets: [] });
    expect(await pageOf(catalog, { status: 'pending', limit: '5' })).toEqual({ pets: [] });
  });

  it.each([1, 100, 3.0, '1', '100', '007'])('accepts limit %j', async (limit) => {
    const { catalog } = await catalogWith(Array.from({ length: 120 }, () => 'available' as const));
    expect((await pageOf(catalog, { limit })).pets).toHaveLength(Number(limit));
  });

  it.each([0, 101, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '0', '101', '1.0', '1e1', '-1', '+1', '', ' 5', '5 ', '0x10', ['5', '6'], ['5'], null, true, {}])(
    'rejects limit %j with field limit',
    async (limit) => {
      const { catalog } = await catalogWith(['available']);
      expect(await catalog.list(untyped({ limit }))).toEqual({
        ok: false,
        error: { code: 'invalid_request', field: 'limit', message: `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}` },
      });
    },
  );

  it.each(['AVAILABLE', '', 'adopted', ['sold'], ['sold', 'pending'], 1, null])('rejects status %j with field status', async (status) => {
    const { catalog } = await catalogWith(['sold']);
    expect(await catalog.list(untyped({ status }))).toEqual({
      ok: false,
      error: { code: 'invalid_request', field: 'status', message: 'status must be one of available, pending, sold' },
    });
  });

  it.each([['x'], 5, null, '', 'garbage', petCursors.encode({ afterId: 1 }).slice(1)])('rejects cursor %j with field cursor', async (cursor) => {
    const { catalog } = await catalogWith(['sold', 'sold']);
    expect(await fieldOfError(catalog.list(untyped({ cursor })))).toBe('cursor');
  });

  it('rejects a cursor used with another status filter than it was issued for', async () => {
    const { catalog } = await catalogWith(['sold', 'sold', 'sold']);
    const sold = (await pageOf(catalog, { limit: 1, status: 'sold' })).next?.cursor;
    const unfiltered = (await pageOf(catalog, { limit: 1 })).next?.cursor;
    expect(await catalog.list(untyped({ cursor: sold }))).toEqual({
      ok: false,
      error: { code: 'invalid_request', field: 'cursor', message: 'cursor was issued for a different status filter' },
    });
    expect(await fieldOfError(catalog.list(untyped({ cursor: sold, status: 'pending' })))).toBe('cursor');
    expect(await fieldOfError(catalog.list(untyped({ cursor: unfiltered, status: 'sold' })))).toBe('cursor');
    expect(await fieldOfError(catalog.list(untyped({ cursor: sold, status: 'sold' })))).toBeUndefined();
  });

  it('checks limit, then status, then cursor', async () => {
    const { catalog } = await catalogWith([]);
    expect(await fieldOfError(catalog.list(untyped({ limit: 0, status: 'x', cursor: 'x' })))).toBe('limit');
    expect(await fieldOfError(catalog.list(untyped({ limit: 1, status: 'x', cursor: 'x' })))).toBe('status');
    expect(await fieldOfError(catalog.list({ limit: 1, status: 'sold', cursor: 'x' }))).toBe('cursor');
  });

  it('asks the repository for the page the query names (the repository tells whether more follow), and nothing when the query is invalid', async () => {
    const repository = new MemoryPetRepository();
    const page = vi.spyOn(repository, 'pageJson');
    const catalog = new PetCatalog(repository);
    await catalog.list({ limit: '7', status: 'pending', cursor: petCursors.encode({ afterId: 3, status: 'pending' }) });
    expect(page).toHaveBeenCalledWith({ afterId: 3, limit: 7, status: 'pending' }, undefined);
    await catalog.list({ limit: '0' });
    expect(page).toHaveBeenCalledTimes(1);
  });

  it('paging through any set of pets with any limit and status yields each matching pet exactly once, in ascending id order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...PET_STATUSES), { maxLength: 60 }),
        fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: MAX_PAGE_LIMIT })),
        fc.boolean(),
        statusFilterArb,
        async (statuses, limit, limitAsText, status) => {
          const { catalog, pets } = await catalogWith(statuses);
          const expected = pets.filter((pet) => status === undefined || pet.status === status);
          const seen: Pet[] = [];
          let page = await pageOf(catalog, { limit: limitAsText ? String(limit) : limit, ...withStatus(status) });
          for (;;) {
            seen.push(...page.pets);
            if (page.next === undefined) break;
            // Only a full page announces a next one, and it keeps the query it was issued for.
            expect(page.pets).toHaveLength(limit);
            expect(page.next.limit).toBe(limit);
            expect(page.next.status).toBe(status);
            const lastId = seen.at(-1)?.id ?? 0;
            page = await pageOf(catalog, { limit: String(page.next.limit), cursor: page.next.cursor, ...withStatus(page.next.status) });
            // Checked per page, not only at the end: a page that does not advance would loop forever.
            expect(page.pets[0]?.id).toBeGreaterThan(lastId);
          }
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: runs(5_000) },
    );
  });

  it('listJson answers any query, valid or not, as list does: the same next page and the JSON of the same pets', async () => {
    const statusesArb = fc.array(fc.constantFrom(...PET_STATUSES), { maxLength: 30 });
    const limitArb = fc.oneof(fc.integer({ min: -1, max: 12 }), fc.constant('5'), fc.constant('abc'));
    await fc.assert(
      fc.asyncProperty(statusesArb, limitArb, statusFilterArb, fc.integer({ min: 0, max: 30 }), async (statuses, limit, status, skip) => {
        const { catalog } = await catalogWith(statuses);
        const first = await catalog.list({ limit, ...withStatus(status) });
        // A cursor the catalog issued, when the first page had a next one, else none.
        const cursor = first.ok && skip % 2 === 1 ? first.value.next?.cursor : undefined;
        const query = { limit, ...withStatus(status), ...(cursor === undefined ? {} : { cursor }) };
        const [asPets, asJson] = [await catalog.list(query), await catalog.listJson(query)];
        const expected = asPets.ok
          ? { ok: true, value: { json: JSON.stringify(asPets.value.pets), ...(asPets.value.next === undefined ? {} : { next: asPets.value.next }) } }
          : asPets;
        expect(asJson).toEqual(expected);
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('any integer limit within 1..100, as a number or as plain decimal digits, returns that many pets or all there are', async () => {
    const { catalog, pets } = await catalogWith(Array.from({ length: 60 }, (_, index) => PET_STATUSES[index % 3] ?? 'sold'));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: MAX_PAGE_LIMIT }), fc.nat({ max: 3 }), async (limit, zeros) => {
        for (const given of [limit, `${'0'.repeat(zeros)}${limit}`]) {
          expect((await pageOf(catalog, { limit: given })).pets).toEqual(pets.slice(0, limit));
        }
      }),
      { numRuns: runs(1_000) },
    );
  });

  it('any limit outside 1..100, not an integer, or not plain decimal digits is rejected with field limit', async () => {
    const { catalog } = await catalogWith(['sold']);
    const badLimit = fc.oneof(
      fc.integer().filter((value) => value < 1 || value > MAX_PAGE_LIMIT),
      fc.double().filter((value) => !Number.isInteger(value) || value < 1 || value > MAX_PAGE_LIMIT),
      fc.string().filter((text) => !/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > MAX_PAGE_LIMIT),
      fc.integer({ min: 1, max: MAX_PAGE_LIMIT }).chain((value) =>
        fc.constantFrom(`${value}.0`, `${value}e0`, ` ${value}`, `${value} `, `+${value}`, `${value}\n`),
      ),
      fc.array(fc.integer({ min: 1, max: MAX_PAGE_LIMIT }).map(String), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(null, true, false, {}),
    );
    await fc.assert(
      fc.asyncProperty(badLimit, async (limit) => {
        expect(await fieldOfError(catalog.list(untyped({ limit })))).toBe('limit');
      }),
      { numRuns: runs(5_000) },
    );
  });

  it('any status other than available, pending or sold is rejected with field status', async () => {
    const { catalog } = await catalogWith(['sold']);
    const badStatus = fc.oneof(
      fc.string().filter((text) => !(PET_STATUSES as readonly string[]).includes(text)),
      fc.array(fc.constantFrom(...PET_STATUSES), { minLength: 1, maxLength: 3 }),
      fc.integer(),
      fc.constant(null),
    );
    await fc.assert(
      fc.asyncProperty(badStatus, async (status) => {
        expect(await fieldOfError(catalog.list(untyped({ status })))).toBe('status');
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('a cursor not issued by the catalog is rejected with field cursor', async () => {
    const { catalog } = await catalogWith(Array.from({ length: 10 }, () => 'sold' as const));
    // An oracle independent of the domain's base64url: what petCursors.encode could have returned for this filter.
    const issuable = (cursor: string, status: PetStatus | undefined): boolean => {
      const text = Buffer.from(cursor, 'base64url').toString('latin1');
      const match = /^v1\.([1-9][0-9]*)(?:\.(available|pending|sold))?$/.exec(text);
      return (
        match !== null &&
        Number.isSafeInteger(Number(match[1])) &&
        match[2] === status &&
        Buffer.from(text, 'latin1').toString('base64url') === cursor
      );
    };
    const alphabet = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
    const issuedArb = fc
      .tuple(fc.integer({ min: 1, max: MAX_ID }), statusFilterArb)
      .map(([afterId, status]) => petCursors.encode(status === undefined ? { afterId } : { afterId, status }));
    const editedArb = fc.tuple(issuedArb, fc.nat(), alphabet, fc.nat({ max: 2 })).map(([cursor, at, char, edit]) => {
      const index = at % cursor.length;
      return cursor.slice(0, index) + (edit === 2 ? '' : char) + cursor.slice(index + edit);
    });
    const candidateArb = fc.oneof(fc.string(), fc.string({ unit: alphabet, maxLength: 44 }), issuedArb, editedArb);
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(candidateArb, statusFilterArb, async (cursor, status) => {
        const field = await fieldOfError(catalog.list({ cursor, ...withStatus(status) }));
        if (field === undefined) accepted += 1;
        expect(field).toBe(issuable(cursor, status) ? undefined : 'cursor');
      }),
      { numRuns: runs(5_000) },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it('a cursor is accepted only with the status filter it was issued for', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...PET_STATUSES), { minLength: 2, maxLength: 20 }),
        statusFilterArb,
        statusFilterArb,
        async (statuses, issuedFor, usedWith) => {
          const { catalog } = await catalogWith(statuses);
          const cursor = (await pageOf(catalog, { limit: 1, ...withStatus(issuedFor) })).next?.cursor;
          fc.pre(cursor !== undefined);
          const field = await fieldOfError(catalog.list({ limit: 1, cursor, ...withStatus(usedWith) }));
          expect(field).toBe(issuedFor === usedWith ? undefined : 'cursor');
        },
      ),
      { numRuns: runs(2_000) },
    );
  });
});

describe('PetCatalog.create', () => {
  it('validates the body, then stores the pet with the next id', async () => {
    const { catalog } = await catalogWith(['sold']);
    expect(await catalog.create({ name: '  Rex ', categoryId: 3 })).toEqual({
      ok: true,
      value: { id: 2, name: 'Rex', categoryId: 3, status: 'available' },
    });
    expect(await catalog.get(2)).toEqual({ ok: true, value: { id: 2, name: 'Rex', categoryId: 3, status: 'available' } });
  });

  it('stores nothing when the body is invalid', async () => {
    const repository = new MemoryPetRepository();
    const create = vi.spyOn(repository, 'create');
    const catalog = new PetCatalog(repository);
    expect(await catalog.create(untyped({ id: 1, name: 'Rex', categoryId: 3 }))).toEqual({
      ok: false,
      error: { code: 'invalid_request', field: 'id', message: 'unknown field: id' },
    });
    expect(create).not.toHaveBeenCalled();
  });
});

describe('PetCatalog.get', () => {
  it('finds a pet by id given as a number or as decimal text', async () => {
    const { catalog, pets } = await catalogWith(['sold', 'pending']);
    expect(await catalog.get(2)).toEqual({ ok: true, value: pets[1] });
    expect(await catalog.get('2')).toEqual({ ok: true, value: pets[1] });
    expect(await catalog.get('0002')).toEqual({ ok: true, value: pets[1] });
  });

  it('answers not_found for an id never assigned', async () => {
    const { catalog } = await catalogWith(['sold']);
    expect(await catalog.get('42')).toEqual({ ok: false, error: { code: 'not_found', message: 'pet 42 not found' } });
    expect(await catalog.get(String(MAX_ID))).toEqual({ ok: false, error: { code: 'not_found', message: `pet ${MAX_ID} not found` } });
  });

  it.each([0, -1, 1.5, 2 ** 53, Number.NaN, '0', '-1', '1.0', '1e1', ' 1', '', 'abc', '9007199254740992', '9007199254740993', null, ['1'], true])(
    'rejects petId %j with field petId',
    async (petId) => {
      const { catalog } = await catalogWith(['sold']);
      expect(await catalog.get(untyped(petId))).toEqual({
        ok: false,
        error: { code: 'invalid_request', field: 'petId', message: `petId must be an integer from 1 to ${MAX_ID}` },
      });
    },
  );

  it('any petId that is not a positive safe integer in digits or as a number is rejected with field petId', async () => {
    const { catalog } = await catalogWith(['sold']);
    const badPetId = fc.oneof(
      fc.integer({ max: 0 }),
      fc.double().filter((value) => !Number.isSafeInteger(value) || value < 1),
      fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n }).map(String),
      fc.string().filter((text) => !/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < 1),
    );
    await fc.assert(
      fc.asyncProperty(badPetId, async (petId) => {
        expect(await fieldOfError(catalog.get(petId))).toBe('petId');
      }),
      { numRuns: runs(5_000) },
    );
  });
});

describe('PetCatalog.updateStatus', () => {
  it('lets staff set any status from any status; the pet, its pages and the inventory follow', async () => {
    const { catalog } = await catalogWith(['available', 'pending', 'sold']);
    for (const from of [1, 2, 3]) {
      for (const status of PET_STATUSES) {
        const updated = await catalog.updateStatus(STAFF, from, { status });
        expect(updated).toEqual({ ok: true, value: { id: from, name: `pet ${from - 1}`, categoryId: 1, status } });
        expect(await catalog.get(String(from))).toEqual(updated);
        expect((await pageOf(catalog, { status })).pets.map((pet) => pet.id)).toContain(from);
      }
    }
    expect(await catalog.inventory()).toEqual({ available: 0, pending: 0, sold: 3 });
    await catalog.updateStatus(STAFF, 2, { status: 'pending' });
    expect(await catalog.inventory()).toEqual({ available: 0, pending: 1, sold: 2 });
    expect((await pageOf(catalog, { status: 'sold' })).pets.map((pet) => pet.id)).toEqual([1, 3]);
  });

  it('refuses a customer before anything is looked up or validated, and changes nothing', async () => {
    const { catalog, pets } = await catalogWith(['pending']);
    for (const [petId, body] of [[1, { status: 'available' }], [999, { status: 'sold' }], ['x', { nonsense: true }]] as const) {
      expect(await catalog.updateStatus(CUSTOMER, petId, untyped(body))).toEqual({ ok: false, error: { code: 'forbidden', message: "only staff keys may change a pet's status" } });
    }
    expect(await catalog.get(1)).toEqual({ ok: true, value: pets[0] });
  });

  it.each<[string, unknown]>([
    ['an unknown status', { status: 'lost' }],
    ['no status', {}],
    ['another field', { status: 'sold', name: 'Rex' }],
    ['a body that is not an object', ['sold']],
    ['a status that is not a string', { status: 1 }],
  ])('answers %s with 400 invalid_request, changing nothing', async (_what, body) => {
    const { catalog, pets } = await catalogWith(['pending']);
    expect(await catalog.updateStatus(STAFF, 1, untyped(body))).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await catalog.get(1)).toEqual({ ok: true, value: pets[0] });
  });

  it('answers an unknown pet 404 and a malformed id 400', async () => {
    const { catalog } = await catalogWith(['pending']);
    expect(await catalog.updateStatus(STAFF, 2, { status: 'sold' })).toEqual({ ok: false, error: { code: 'not_found', message: 'pet 2 not found' } });
    expect(await fieldOfError(catalog.updateStatus(STAFF, '1.0', { status: 'sold' }))).toBe('petId');
  });
});

describe('PetCatalog and an unreachable store', () => {
  const down: PetRepository = {
    create: () => Promise.reject(new StoreUnavailableError('pet store')),
    get: () => Promise.reject(new StoreUnavailableError('pet store')),
    pageJson: () => Promise.reject(new StoreUnavailableError('pet store')),
    updateStatus: () => Promise.reject(new StoreUnavailableError('pet store')),
    countByStatus: () => Promise.reject(new StoreUnavailableError('pet store')),
  };
  const catalog = new PetCatalog(down);

  it('lets StoreUnavailableError propagate as a thrown error from every method', async () => {
    await expect(catalog.list({})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(catalog.listJson({})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(catalog.create({ name: 'Rex', categoryId: 1 })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(catalog.get('1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(catalog.updateStatus(STAFF, '1', { status: 'sold' })).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('still reports invalid input as a value without touching the store', async () => {
    expect(await fieldOfError(catalog.list({ limit: '0' }))).toBe('limit');
    expect(await fieldOfError(catalog.listJson({ limit: '0' }))).toBe('limit');
    expect(await fieldOfError(catalog.create(untyped({})))).toBe('name');
    expect(await fieldOfError(catalog.get('0'))).toBe('petId');
    expect(await fieldOfError(catalog.updateStatus(STAFF, '0', { status: 'sold' }))).toBe('petId');
    expect(await fieldOfError(catalog.updateStatus(STAFF, '1', untyped({ status: 'lost' })))).toBe('status');
    expect(await catalog.updateStatus(CUSTOMER, '1', { status: 'sold' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });
});
