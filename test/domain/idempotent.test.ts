import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryIdempotencyRecords } from '../../src/adapters/memory/memory-idempotency-records.js';
import { MemoryIdempotencyStore } from '../../src/adapters/memory/memory-idempotency-store.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import { invalid, refused, StoreUnavailableError, type DomainError } from '../../src/domain/errors.js';
import { runIdempotently } from '../../src/domain/idempotency/idempotent.js';
import { PetCatalog } from '../../src/domain/pets/pet-catalog.js';
import { err, ok, type Result } from '../../src/domain/result.js';
import {
  IDEMPOTENCY_IN_FLIGHT_MS,
  IDEMPOTENCY_MARK_RESOLUTION_MS,
  IDEMPOTENCY_RECORD_MS,
  type IdempotencyClaim,
  type IdempotencyStart,
  type IdempotencyStore,
} from '../../src/ports/idempotency-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { untyped } from '../support/untyped.js';
import { runs } from '../support/property-runs.js';

const CLAIM: IdempotencyClaim = { scope: 'key-digest', key: 'k-1', fingerprint: 'POST /v1/pets {"name":"Rex","categoryId":1}' };
const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' } as const;

/** A store that answers `begin` with `start` and records every call. */
const stubStore = (start: IdempotencyStart, release: () => Promise<void> = async () => undefined) => {
  const calls: string[] = [];
  const store: IdempotencyStore = {
    async begin(claim) {
      calls.push(`begin ${claim.key}`);
      return start;
    },
    async release(claim) {
      calls.push(`release ${claim.key}`);
      return release();
    },
  };
  return { store, calls };
};

describe('runIdempotently', () => {
  it.each<[string, IdempotencyStart]>([
    ['replay', { kind: 'replay', result: { kind: 'pet', pet: PET } }],
    ['in_flight', { kind: 'in_flight', leftMs: 3_000 }],
    ['reused', { kind: 'reused' }],
  ])('a %s from the store is answered as it is, without running the request or releasing the key', async (_, start) => {
    const { store, calls } = stubStore(start);
    let ran = 0;
    const outcome = await runIdempotently(store, CLAIM, async () => {
      ran += 1;
      return ok(PET);
    });
    expect(outcome).toEqual(start);
    expect(ran).toBe(0);
    expect(calls).toEqual(['begin k-1']);
  });

  it('a started request runs once with the claim, and its success keeps the mark (the repository wrote the record)', async () => {
    const { store, calls } = stubStore({ kind: 'started' });
    const seen: IdempotencyClaim[] = [];
    const outcome = await runIdempotently(store, CLAIM, async (claim) => {
      seen.push(claim);
      return ok(PET);
    });
    expect(outcome).toEqual({ kind: 'ran', result: ok(PET) });
    expect(seen).toEqual([CLAIM]);
    expect(calls).toEqual(['begin k-1']);
  });

  it.each<[string, DomainError]>([
    ['a 400', invalid('name', 'name is required')],
    ['a 404', { code: 'not_found', message: 'pet 9 not found' }],
    ['a 409', refused('pet_unavailable', 'pet 1 is not available')],
  ])('a request refused with %s releases the key so a retry may run, and answers the refusal', async (_, error) => {
    const { store, calls } = stubStore({ kind: 'started' });
    const outcome = await runIdempotently<typeof PET>(store, CLAIM, async () => err(error));
    expect(outcome).toEqual({ kind: 'ran', result: err(error) });
    expect(calls).toEqual(['begin k-1', 'release k-1']);
  });

  it('a request that throws releases the key and rethrows the same error', async () => {
    const { store, calls } = stubStore({ kind: 'started' });
    const failure = new StoreUnavailableError('memory');
    await expect(
      runIdempotently(store, CLAIM, async (): Promise<Result<typeof PET, DomainError>> => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(calls).toEqual(['begin k-1', 'release k-1']);
  });

  it('when both the request and the release fail, the request failure is the one thrown', async () => {
    const { store, calls } = stubStore({ kind: 'started' }, async () => {
      throw new StoreUnavailableError('idempotency store');
    });
    const failure = new Error('request failed');
    await expect(
      runIdempotently(store, CLAIM, async (): Promise<Result<typeof PET, DomainError>> => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(calls).toEqual(['begin k-1', 'release k-1']);
  });

  it('a store that fails at begin fails the request before it runs', async () => {
    const failure = new StoreUnavailableError('idempotency store');
    const store: IdempotencyStore = {
      begin: async () => {
        throw failure;
      },
      release: async () => {
        throw new Error('release must not be called');
      },
    };
    let ran = 0;
    await expect(
      runIdempotently(store, CLAIM, async () => {
        ran += 1;
        return ok(PET);
      }),
    ).rejects.toBe(failure);
    expect(ran).toBe(0);
  });
});

describe('runIdempotently over the memory store and repositories', () => {
  const wired = () => {
    const clock = new ManualClock(Date.UTC(2033, 0, 1));
    const records = new MemoryIdempotencyRecords(clock);
    const pets = new MemoryPetRepository(records);
    const store = new MemoryIdempotencyStore(records);
    return { clock, records, pets, store, catalog: new PetCatalog(pets) };
  };
  const BODY = { name: 'Rex', categoryId: 1 };

  /** A request that waits for `gate` before it creates. */
  const gated = (catalog: PetCatalog, gate: Promise<void>) => async (claim: IdempotencyClaim) => {
    await gate;
    return catalog.create(BODY, claim);
  };

  it('a repeat while the first is in flight is in_flight, another body then is reused, and once the first succeeds the repeat replays it', async () => {
    const { store, catalog } = wired();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = runIdempotently(store, CLAIM, gated(catalog, gate));
    expect(await runIdempotently(store, CLAIM, () => catalog.create(BODY))).toEqual({ kind: 'in_flight', leftMs: IDEMPOTENCY_IN_FLIGHT_MS });
    expect(await runIdempotently(store, { ...CLAIM, fingerprint: 'other' }, () => catalog.create(BODY))).toEqual({ kind: 'reused' });
    open();
    const done = await first;
    expect(done).toEqual({ kind: 'ran', result: ok({ id: 1, ...BODY, status: 'available' }) });
    expect(await runIdempotently(store, CLAIM, () => catalog.create(BODY))).toEqual({
      kind: 'replay',
      result: { kind: 'pet', pet: { id: 1, ...BODY, status: 'available' } },
    });
    expect(await catalog.inventory()).toEqual({ available: 1, pending: 0, sold: 0 });
  });

  it('of any number of concurrent identical requests, exactly one runs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 12 }), async (count) => {
        const { store, catalog } = wired();
        const outcomes = await Promise.all(Array.from({ length: count }, () => runIdempotently(store, CLAIM, (claim) => catalog.create(BODY, claim))));
        expect(outcomes.filter((outcome) => outcome.kind === 'ran')).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome.kind !== 'ran').every((outcome) => outcome.kind === 'in_flight' || outcome.kind === 'replay')).toBe(true);
        expect((await catalog.inventory()).available).toBe(1);
      }),
      { numRuns: runs(100) },
    );
  });

  it('a refused request leaves no record or mark: the retry with the same key runs', async () => {
    const { store, catalog, records } = wired();
    const refusedFirst = await runIdempotently(store, CLAIM, () => catalog.create(untyped({ name: '' })));
    expect(refusedFirst).toMatchObject({ kind: 'ran', result: { ok: false, error: { code: 'invalid_request' } } });
    expect(records.size).toBe(0);
    expect(await runIdempotently(store, CLAIM, (claim) => catalog.create(BODY, claim))).toMatchObject({ kind: 'ran', result: { ok: true } });
    expect(records.size).toBe(1);
  });

  it('a thrown request frees the key: the retry runs', async () => {
    const { store, catalog } = wired();
    await expect(runIdempotently(store, CLAIM, () => Promise.reject(new StoreUnavailableError('memory')))).rejects.toThrow(StoreUnavailableError);
    expect((await runIdempotently(store, CLAIM, (claim) => catalog.create(BODY, claim))).kind).toBe('ran');
  });

  it('keys are scoped: the same key under another API key is another request', async () => {
    const { store, catalog } = wired();
    expect((await runIdempotently(store, CLAIM, (claim) => catalog.create(BODY, claim))).kind).toBe('ran');
    expect((await runIdempotently(store, { ...CLAIM, scope: 'another' }, (claim) => catalog.create(BODY, claim))).kind).toBe('ran');
    expect(await catalog.inventory()).toEqual({ available: 2, pending: 0, sold: 0 });
  });

  it('a record is kept 24 h: replayed until then, a new request from then on', async () => {
    const { store, catalog, clock } = wired();
    await runIdempotently(store, CLAIM, (claim) => catalog.create(BODY, claim));
    clock.advance(IDEMPOTENCY_RECORD_MS - 1);
    expect((await runIdempotently(store, CLAIM, (claim) => catalog.create(BODY, claim))).kind).toBe('replay');
    clock.advance(1);
    expect((await runIdempotently(store, CLAIM, (claim) => catalog.create(BODY, claim))).kind).toBe('ran');
  });

  it('an in-flight mark whose request never finished holds repeats off, telling its time left, until its last second', async () => {
    const { store, clock } = wired();
    expect(await store.begin(CLAIM)).toEqual({ kind: 'started' });
    clock.advance(IDEMPOTENCY_IN_FLIGHT_MS - IDEMPOTENCY_MARK_RESOLUTION_MS);
    expect(await store.begin(CLAIM)).toEqual({ kind: 'in_flight', leftMs: IDEMPOTENCY_MARK_RESOLUTION_MS });
    clock.advance(1);
    expect(await store.begin(CLAIM)).toEqual({ kind: 'started' });
  });

  it('the record is written in the step that creates: it replays even when the answer was never seen', async () => {
    const { store, pets } = wired();
    expect(await store.begin(CLAIM)).toEqual({ kind: 'started' });
    const pet = await pets.create({ ...BODY, status: 'available' }, CLAIM);
    // No runIdempotently bookkeeping after the create: the process could have died here.
    expect(await store.begin(CLAIM)).toEqual({ kind: 'replay', result: { kind: 'pet', pet } });
  });
});
