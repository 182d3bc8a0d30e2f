import assert from 'node:assert/strict';
import type { NewPet } from '../domain/pets/pet.js';
import { IDEMPOTENCY_IN_FLIGHT_MS, IDEMPOTENCY_MARK_RESOLUTION_MS, type IdempotencyStart, type IdempotencyStore } from '../ports/idempotency-store.js';
import { atLeast, atMost, like, same } from './assertions.js';
import { checkOf, type ContractCheck, type Disposable } from './check.js';
import { claimOf, pagedPets, type CreateStores, type StoresFixture } from './stores-fixture.js';

const REX: NewPet = { name: 'Rex', categoryId: 1, status: 'available' };
const FIRST = 'POST /v1/pets {"name":"Rex","categoryId":1}';
const OTHER = 'POST /v1/pets {"name":"Tom","categoryId":1}';
/** In flight, with whatever time its mark has left (its own check checks the time). */
const inFlight = (answer: IdempotencyStart): void => {
  like(answer, { kind: 'in_flight' });
  assert.equal(typeof (answer as { leftMs?: unknown }).leftMs, 'number', `expected the time an in-flight mark has left, got ${JSON.stringify(answer)}`);
};

/**
 * The behaviour every IdempotencyStore shares, with the repositories that complete its records:
 * one check per rule. Expiry is each store's own test: it needs control of its clock. `create`
 * must give fresh, empty stores and `cleanup` must release them.
 */
export const idempotencyStoreChecks = (create: CreateStores): ContractCheck[] => {
  interface Context extends Disposable {
    readonly fixture: StoresFixture;
    readonly store: IdempotencyStore;
  }
  const setup = async (): Promise<Context> => {
    const fixture = await create();
    return { fixture, store: fixture.idempotency, cleanup: async () => fixture.cleanup() };
  };
  const check = (name: string, body: (context: Context) => Promise<void>): ContractCheck => checkOf(name, setup, body);

  return [
    check('a new key starts; a repeat while it runs is in flight; another request under it is reused', async ({ store }) => {
      const claim = claimOf('k1', FIRST);
      same(await store.begin(claim), { kind: 'started' });
      inFlight(await store.begin(claim));
      same(await store.begin(claimOf('k1', OTHER)), { kind: 'reused' });
      inFlight(await store.begin(claim));
    }),

    check('a repeat in flight is told the time its mark has left: at least IDEMPOTENCY_MARK_RESOLUTION_MS, at most IDEMPOTENCY_IN_FLIGHT_MS', async ({ store }) => {
      const claim = claimOf('k1', FIRST);
      await store.begin(claim);
      const repeat = await store.begin(claim);
      same(repeat.kind, 'in_flight');
      const leftMs = repeat.kind === 'in_flight' ? repeat.leftMs : NaN;
      atLeast(leftMs, IDEMPOTENCY_MARK_RESOLUTION_MS);
      atMost(leftMs, IDEMPOTENCY_IN_FLIGHT_MS);
    }),

    check('a completed request is replayed to a repeat and reused for another request, and release leaves it', async ({ store, fixture }) => {
      const claim = claimOf('k1', FIRST);
      await store.begin(claim);
      const pet = await fixture.pets.create(REX, claim);
      same(await store.begin(claim), { kind: 'replay', result: { kind: 'pet', pet } });
      same(await store.begin(claimOf('k1', OTHER)), { kind: 'reused' });
      await store.release(claim);
      same(await store.begin(claim), { kind: 'replay', result: { kind: 'pet', pet } });
    }),

    check('the replay is the pet as created, whatever happened to it since', async ({ store, fixture }) => {
      const claim = claimOf('k1', FIRST);
      await store.begin(claim);
      const pet = await fixture.pets.create(REX, claim);
      await fixture.orders.place({ petId: pet.id, ownerId: 'o', placedAt: '2026-01-01T00:00:00.000Z' });
      same((await fixture.pets.get(pet.id))?.status, 'pending');
      same(await store.begin(claim), { kind: 'replay', result: { kind: 'pet', pet } });
    }),

    check('a creating step whose claim already stored something returns it and stores nothing more (a mark that expired cannot let a repeat store twice)', async ({ fixture }) => {
      const petClaim = claimOf('k1', FIRST);
      const pet = await fixture.pets.create(REX, petClaim);
      same(await fixture.pets.create(REX, petClaim), pet);
      same(await pagedPets(fixture.pets, { afterId: 0, limit: 10 }), [pet]);
      const orderClaim = claimOf('k2', `POST /v1/store/orders {"petId":${pet.id}}`);
      const first = await fixture.orders.place({ petId: pet.id, ownerId: 'o', placedAt: '2026-01-01T00:00:00.000Z' }, orderClaim);
      same(first.kind, 'placed');
      const again = await fixture.orders.place({ petId: pet.id, ownerId: 'o', placedAt: '2026-01-01T00:00:09.000Z' }, orderClaim);
      same(again, first);
      same((await fixture.orders.page({ afterId: 0, limit: 10 })).length, 1);
    }),

    check('release drops the in-flight mark of its own fingerprint only, so a retry may run', async ({ store }) => {
      const claim = claimOf('k1', FIRST);
      await store.begin(claim);
      await store.release(claimOf('k1', OTHER));
      inFlight(await store.begin(claim));
      await store.release(claim);
      same(await store.begin(claim), { kind: 'started' });
      // A released key is free for any request.
      await store.release(claim);
      same(await store.begin(claimOf('k1', OTHER)), { kind: 'started' });
      // Releasing what was never begun changes nothing.
      await store.release(claimOf('never'));
      same(await store.begin(claimOf('never')), { kind: 'started' });
    }),

    check('keys are separate per scope, and no scope and key spell another pair', async ({ store }) => {
      same(await store.begin(claimOf('k', FIRST, 'scope-1')), { kind: 'started' });
      same(await store.begin(claimOf('k', OTHER, 'scope-2')), { kind: 'started' });
      same(await store.begin(claimOf('b:c', FIRST, 'a')), { kind: 'started' });
      same(await store.begin(claimOf('c', OTHER, 'a:b')), { kind: 'started' });
      inFlight(await store.begin(claimOf('k', FIRST, 'scope-1')));
    }),

    check('keys of any visible ASCII, braces included, up to 255 characters', async ({ store, fixture }) => {
      const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('');
      for (const key of [visible, '{pets}', 'x'.repeat(255)]) {
        const claim = claimOf(key, FIRST);
        same(await store.begin(claim), { kind: 'started' });
        const pet = await fixture.pets.create(REX, claim);
        same(await store.begin(claim), { kind: 'replay', result: { kind: 'pet', pet } });
      }
    }),

    check('of 20 concurrent begin-and-create with one claim exactly one creates a pet', async ({ store, fixture }) => {
      const claim = claimOf('k1', FIRST);
      const attempts = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const start = await store.begin(claim);
          return start.kind === 'started' ? { kind: 'created' as const, pet: await fixture.pets.create(REX, claim) } : start;
        }),
      );
      const created = attempts.flatMap((attempt) => (attempt.kind === 'created' ? [attempt.pet] : []));
      same((created).length, 1);
      for (const attempt of attempts) assert.ok(['created', 'in_flight', 'replay'].includes(attempt.kind), `unexpected answer ${JSON.stringify(attempt)}`);
      same(await fixture.pets.countByStatus(), { available: 1, pending: 0, sold: 0 });
      same(await store.begin(claim), { kind: 'replay', result: { kind: 'pet', pet: created[0] } });
    }),

    check('of 20 concurrent begin-and-place with one claim exactly one places an order', async ({ store, fixture }) => {
      const pet = await fixture.pets.create(REX);
      const claim = claimOf('k1', `POST /v1/store/orders {"petId":${pet.id}}`);
      const order = { petId: pet.id, ownerId: 'o', placedAt: '2026-01-01T00:00:00.000Z' };
      const attempts = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const start = await store.begin(claim);
          return start.kind === 'started' ? fixture.orders.place(order, claim) : start;
        }),
      );
      same((attempts.filter((attempt) => attempt.kind === 'placed')).length, 1);
      same((await fixture.orders.page({ afterId: 0, limit: 10 })).length, 1);
      same(await store.begin(claim), { kind: 'replay', result: { kind: 'order', order: { id: 1, status: 'placed', ...order } } });
    }),
  ];
};
