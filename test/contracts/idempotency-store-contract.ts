import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewPet } from '../../src/domain/pets/pet.js';
import { IDEMPOTENCY_IN_FLIGHT_MS, IDEMPOTENCY_MARK_RESOLUTION_MS, type IdempotencyStore } from '../../src/ports/idempotency-store.js';
import { claimOf, pagedPets, type CreateStores, type StoresFixture } from './stores-fixture.js';

const REX: NewPet = { name: 'Rex', categoryId: 1, status: 'available' };
const FIRST = 'POST /v1/pets {"name":"Rex","categoryId":1}';
const OTHER = 'POST /v1/pets {"name":"Tom","categoryId":1}';
/** In flight, with whatever time its mark has left (its own test checks the time). */
const IN_FLIGHT = { kind: 'in_flight', leftMs: expect.any(Number) };

/**
 * The behaviour every IdempotencyStore adapter shares, with the repositories that complete its
 * records. Expiry is the adapters' own tests: it needs control of their clock.
 */
export const describeIdempotencyStoreContract = (adapterName: string, create: CreateStores): void => {
  describe(`${adapterName} fulfils the IdempotencyStore contract`, () => {
    let fixture: StoresFixture;
    let store: IdempotencyStore;

    beforeEach(async () => {
      fixture = await create();
      store = fixture.idempotency;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('a new key starts; a repeat while it runs is in flight; another request under it is reused', async () => {
      const claim = claimOf('k1', FIRST);
      expect(await store.begin(claim)).toEqual({ kind: 'started' });
      expect(await store.begin(claim)).toEqual(IN_FLIGHT);
      expect(await store.begin(claimOf('k1', OTHER))).toEqual({ kind: 'reused' });
      expect(await store.begin(claim)).toEqual(IN_FLIGHT);
    });

    it('a repeat in flight is told the time its mark has left: at least IDEMPOTENCY_MARK_RESOLUTION_MS, at most IDEMPOTENCY_IN_FLIGHT_MS', async () => {
      const claim = claimOf('k1', FIRST);
      await store.begin(claim);
      const repeat = await store.begin(claim);
      expect(repeat.kind).toBe('in_flight');
      const leftMs = repeat.kind === 'in_flight' ? repeat.leftMs : NaN;
      expect(leftMs).toBeGreaterThanOrEqual(IDEMPOTENCY_MARK_RESOLUTION_MS);
      expect(leftMs).toBeLessThanOrEqual(IDEMPOTENCY_IN_FLIGHT_MS);
    });

    it('a completed request is replayed to a repeat and reused for another request, and release leaves it', async () => {
      const claim = claimOf('k1', FIRST);
      await store.begin(claim);
      const pet = await fixture.pets.create(REX, claim);
      expect(await store.begin(claim)).toEqual({ kind: 'replay', result: { kind: 'pet', pet } });
      expect(await store.begin(claimOf('k1', OTHER))).toEqual({ kind: 'reused' });
      await store.release(claim);
      expect(await store.begin(claim)).toEqual({ kind: 'replay', result: { kind: 'pet', pet } });
    });

    it('the replay is the pet as created, whatever happened to it since', async () => {
      const claim = claimOf('k1', FIRST);
      await store.begin(claim);
      const pet = await fixture.pets.create(REX, claim);
      await fixture.orders.place({ petId: pet.id, ownerId: 'o', placedAt: '2026-01-01T00:00:00.000Z' });
      expect((await fixture.pets.get(pet.id))?.status).toBe('pending');
      expect(await store.begin(claim)).toEqual({ kind: 'replay', result: { kind: 'pet', pet } });
    });

    it('a creating step whose claim already stored something returns it and stores nothing more (a mark that expired cannot let a repeat store twice)', async () => {
      const petClaim = claimOf('k1', FIRST);
      const pet = await fixture.pets.create(REX, petClaim);
      expect(await fixture.pets.create(REX, petClaim)).toEqual(pet);
      expect(await pagedPets(fixture.pets, { afterId: 0, limit: 10 })).toEqual([pet]);
      const orderClaim = claimOf('k2', `POST /v1/store/orders {"petId":${pet.id}}`);
      const first = await fixture.orders.place({ petId: pet.id, ownerId: 'o', placedAt: '2026-01-01T00:00:00.000Z' }, orderClaim);
      expect(first.kind).toBe('placed');
      const again = await fixture.orders.place({ petId: pet.id, ownerId: 'o', placedAt: '2026-01-01T00:00:09.000Z' }, orderClaim);
      expect(again).toEqual(first);
      expect(await fixture.orders.page({ afterId: 0, limit: 10 })).toHaveLength(1);
    });

    it('release drops the in-flight mark of its own fingerprint only, so a retry may run', async () => {
      const claim = claimOf('k1', FIRST);
      await store.begin(claim);
      await store.release(claimOf('k1', OTHER));
      expect(await store.begin(claim)).toEqual(IN_FLIGHT);
      await store.release(claim);
      expect(await store.begin(claim)).toEqual({ kind: 'started' });
      // A released key is free for any request.
      await store.release(claim);
      expect(await store.begin(claimOf('k1', OTHER))).toEqual({ kind: 'started' });
      // Releasing what was never begun changes nothing.
      await store.release(claimOf('never'));
      expect(await store.begin(claimOf('never'))).toEqual({ kind: 'started' });
    });

    it('keys are separate per scope, and no scope and key spell another pair', async () => {
      expect(await store.begin(claimOf('k', FIRST, 'scope-1'))).toEqual({ kind: 'started' });
      expect(await store.begin(claimOf('k', OTHER, 'scope-2'))).toEqual({ kind: 'started' });
      expect(await store.begin(claimOf('b:c', FIRST, 'a'))).toEqual({ kind: 'started' });
      expect(await store.begin(claimOf('c', OTHER, 'a:b'))).toEqual({ kind: 'started' });
      expect(await store.begin(claimOf('k', FIRST, 'scope-1'))).toEqual(IN_FLIGHT);
    });

    it('keys of any visible ASCII, braces included, up to 255 characters', async () => {
      const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('');
      for (const key of [visible, '{pets}', 'x'.repeat(255)]) {
        const claim = claimOf(key, FIRST);
        expect(await store.begin(claim)).toEqual({ kind: 'started' });
        const pet = await fixture.pets.create(REX, claim);
        expect(await store.begin(claim)).toEqual({ kind: 'replay', result: { kind: 'pet', pet } });
      }
    });

    it('of 20 concurrent begin-and-create with one claim exactly one creates a pet', async () => {
      const claim = claimOf('k1', FIRST);
      const attempts = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const start = await store.begin(claim);
          return start.kind === 'started' ? { kind: 'created' as const, pet: await fixture.pets.create(REX, claim) } : start;
        }),
      );
      const created = attempts.flatMap((attempt) => (attempt.kind === 'created' ? [attempt.pet] : []));
      expect(created).toHaveLength(1);
      for (const attempt of attempts) expect(['created', 'in_flight', 'replay']).toContain(attempt.kind);
      expect(await fixture.pets.countByStatus()).toEqual({ available: 1, pending: 0, sold: 0 });
      expect(await store.begin(claim)).toEqual({ kind: 'replay', result: { kind: 'pet', pet: created[0] } });
    });

    it('of 20 concurrent begin-and-place with one claim exactly one places an order', async () => {
      const pet = await fixture.pets.create(REX);
      const claim = claimOf('k1', `POST /v1/store/orders {"petId":${pet.id}}`);
      const order = { petId: pet.id, ownerId: 'o', placedAt: '2026-01-01T00:00:00.000Z' };
      const attempts = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const start = await store.begin(claim);
          return start.kind === 'started' ? fixture.orders.place(order, claim) : start;
        }),
      );
      expect(attempts.filter((attempt) => attempt.kind === 'placed')).toHaveLength(1);
      expect(await fixture.orders.page({ afterId: 0, limit: 10 })).toHaveLength(1);
      expect(await store.begin(claim)).toEqual({ kind: 'replay', result: { kind: 'order', order: { id: 1, status: 'placed', ...order } } });
    });
  });
};
