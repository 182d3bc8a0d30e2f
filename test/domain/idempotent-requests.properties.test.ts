import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryIdempotencyRecords } from '../../src/adapters/memory/memory-idempotency-records.js';
import { MemoryIdempotencyStore } from '../../src/adapters/memory/memory-idempotency-store.js';
import { MemoryOrderRepository } from '../../src/adapters/memory/memory-order-repository.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import type { Caller } from '../../src/domain/access/caller.js';
import type { DomainError } from '../../src/domain/errors.js';
import { runIdempotently, type IdempotentOutcome } from '../../src/domain/idempotency/idempotent.js';
import type { Order } from '../../src/domain/orders/order.js';
import { OrderService } from '../../src/domain/orders/order-service.js';
import type { Pet } from '../../src/domain/pets/pet.js';
import { PetCatalog } from '../../src/domain/pets/pet-catalog.js';
import type { Result } from '../../src/domain/result.js';
import { IDEMPOTENCY_RECORD_MS, type IdempotencyClaim, type IdempotentResult } from '../../src/ports/idempotency-store.js';
import { pagedPets } from '../contracts/stores-fixture.js';
import { ManualClock } from '../support/manual-clock.js';
import { untyped } from '../support/untyped.js';
import { runs, share } from '../support/property-runs.js';

const CALLERS: readonly Caller[] = [
  { id: 'customer', role: 'customer' },
  { id: 'staff', role: 'staff' },
];

type Operation = 'createPet' | 'placeOrder';

// Small sets, so keys and bodies repeat. Bodies that mean the same but differ in bytes are different requests.
const BODIES: Readonly<Record<Operation, readonly unknown[]>> = {
  createPet: [
    { name: 'Rex', categoryId: 1 },
    { name: 'Rex', categoryId: 1, status: 'available' },
    { name: 'Tom', categoryId: 2, status: 'sold' },
    { name: '', categoryId: 1 }, // 400
  ],
  placeOrder: [
    { petId: 1 },
    { petId: 2 },
    { petId: 3 }, // often not there yet: 404
    { petId: '1' }, // 400
    { petId: 1, quantity: 1 }, // 400
  ],
};
const KEYS = ['k1', 'k2', 'k3'] as const;
const START = Date.UTC(2032, 1, 3, 4, 5, 6, 789);

/** The memory adapters wired as the app wires them: records shared by the store and the repositories. */
const system = (clock: ManualClock) => {
  const records = new MemoryIdempotencyRecords(clock);
  const petRepository = new MemoryPetRepository(records);
  const orderRepository = new MemoryOrderRepository(petRepository, records);
  const idempotency = new MemoryIdempotencyStore(records);
  const catalog = new PetCatalog(petRepository);
  const orders = new OrderService(orderRepository, clock);
  const create = (caller: Caller, operation: Operation, body: unknown, claim?: IdempotencyClaim): Promise<Result<Pet | Order, DomainError>> =>
    operation === 'createPet' ? catalog.create(untyped(body), claim) : orders.place(caller, untyped(body), claim);
  const state = async () => ({
    pets: await pagedPets(petRepository, { afterId: 0, limit: 1_000_000 }),
    orders: await orderRepository.page({ afterId: 0, limit: 1_000_000 }),
  });
  return { records, idempotency, catalog, orders, create, state };
};
type System = ReturnType<typeof system>;

// As the HTTP adapter fingerprints: the operation and the body's bytes.
const fingerprintOf = (operation: Operation, body: unknown): string => `${operation}\n${JSON.stringify(body)}`;
const claimOf = (caller: Caller, key: string, operation: Operation, body: unknown): IdempotencyClaim => ({
  scope: caller.id,
  key,
  fingerprint: fingerprintOf(operation, body),
});
const recordOf = (operation: Operation, value: Pet | Order): IdempotentResult =>
  operation === 'createPet' ? { kind: 'pet', pet: value as Pet } : { kind: 'order', order: value as Order };

const idempotently = (sys: System, caller: Caller, key: string, operation: Operation, body: unknown): Promise<IdempotentOutcome<Pet | Order>> => {
  const claim = claimOf(caller, key, operation, body);
  return runIdempotently(sys.idempotency, claim, (started) => sys.create(caller, operation, body, started));
};

type Command =
  | { readonly kind: 'request'; readonly caller: number; readonly key: string | undefined; readonly operation: Operation; readonly body: number }
  /** Staff move an order (by its position among those placed), so pets come free or get sold. */
  | { readonly kind: 'move'; readonly order: number; readonly action: 'cancel' | 'approve' | 'deliver' }
  | { readonly kind: 'advance'; readonly ms: number }
  /** A client retry: one of the requests sent so far (the n-th from the latest), sent again as it was. */
  | { readonly kind: 'repeat'; readonly back: number };

const requestArb = fc.record({
  kind: fc.constant('request' as const),
  caller: fc.integer({ min: 0, max: CALLERS.length - 1 }),
  key: fc.option(fc.constantFrom(...KEYS), { nil: undefined, freq: 6 }),
  operation: fc.constantFrom<Operation>('createPet', 'placeOrder'),
  body: fc.nat(4),
});
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 12, arbitrary: requestArb },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('repeat' as const), back: fc.nat(6) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      order: fc.nat(5),
      action: fc.constantFrom('cancel' as const, 'cancel' as const, 'approve' as const, 'deliver' as const),
    }),
  },
  // Mostly minutes; now and then past the 24 h a record is kept.
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 0, max: 3_600_000 }) },
        { weight: 1, arbitrary: fc.constantFrom(IDEMPOTENCY_RECORD_MS - 1, IDEMPOTENCY_RECORD_MS, IDEMPOTENCY_RECORD_MS + 1) },
      ),
    }),
  },
);

const bodyOf = (operation: Operation, index: number): unknown => {
  const bodies = BODIES[operation];
  return bodies[index % bodies.length];
};

interface ModelRecord {
  readonly fingerprint: string;
  readonly result: IdempotentResult;
  readonly expiresAt: number;
}

describe('Idempotency-Key over the memory adapters', () => {
  it(
    'a replayed request never changes the store: a repeat with the same key and body returns the first result and leaves pets ' +
      "and orders exactly as they were; another body under a used key is 'reused' and changes nothing; a refused request leaves " +
      'no record, so a retry with the same key runs again; and what runs does exactly what it does without a key',
    async () => {
      const seen = { replay: 0, reused: 0, ranAfterRefusal: 0, succeededAfterRefusal: 0, expired: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom('available', 'pending'), { maxLength: 2 }),
          fc.array(commandArb, { minLength: 1, maxLength: 60, size: 'max' }),
          async (initialPets, commands) => {
            const clock = new ManualClock(START);
            const subject = system(clock);
            // The same requests without Idempotency-Key, sent only when the subject should run one: the reference.
            const reference = system(clock);
            for (const status of initialPets) {
              for (const sys of [subject, reference]) await sys.catalog.create({ name: 'Ada', categoryId: 3, status });
            }
            const records = new Map<string, ModelRecord>();
            const refusedBefore = new Set<string>();
            const sent: Extract<Command, { kind: 'request' }>[] = [];
            for (const [step, generated] of commands.entries()) {
              const command = generated.kind === 'repeat' ? sent[sent.length - 1 - (generated.back % Math.max(1, sent.length))] : generated;
              if (command === undefined) continue;
              if (command.kind === 'request') sent.push(command);
              const where = `step ${step}: ${JSON.stringify(command)}`;
              if (command.kind === 'advance') {
                clock.advance(command.ms);
                continue;
              }
              const before = await subject.state();
              if (command.kind === 'move') {
                const order = before.orders[command.order % Math.max(1, before.orders.length)];
                if (order === undefined) continue;
                const staff = CALLERS[1]!;
                const move = (sys: System) =>
                  command.action === 'cancel'
                    ? sys.orders.cancel(staff, order.id)
                    : sys.orders.update(staff, order.id, { status: command.action === 'approve' ? 'approved' : 'delivered' });
                expect(await move(subject), where).toEqual(await move(reference));
                expect(await subject.state(), where).toEqual(await reference.state());
                continue;
              }
              const caller = CALLERS[command.caller]!;
              const body = bodyOf(command.operation, command.body);
              if (command.key === undefined) {
                expect(await subject.create(caller, command.operation, body), where).toEqual(await reference.create(caller, command.operation, body));
                expect(await subject.state(), where).toEqual(await reference.state());
                continue;
              }
              const recordKey = JSON.stringify([caller.id, command.key]);
              const fingerprint = fingerprintOf(command.operation, body);
              let record = records.get(recordKey);
              if (record !== undefined && record.expiresAt <= clock.now()) {
                seen.expired += 1;
                records.delete(recordKey);
                record = undefined;
              }
              const outcome = await idempotently(subject, caller, command.key, command.operation, body);
              if (record !== undefined) {
                if (record.fingerprint === fingerprint) {
                  seen.replay += 1;
                  expect(outcome, where).toEqual({ kind: 'replay', result: record.result });
                } else {
                  seen.reused += 1;
                  expect(outcome, where).toEqual({ kind: 'reused' });
                }
                // Nothing stored, nothing changed.
                expect(await subject.state(), where).toEqual(before);
                continue;
              }
              const attempt = `${recordKey} ${fingerprint}`;
              if (refusedBefore.has(attempt)) seen.ranAfterRefusal += 1;
              const expected = await reference.create(caller, command.operation, body);
              expect(outcome, where).toEqual({ kind: 'ran', result: expected });
              expect(await subject.state(), where).toEqual(await reference.state());
              if (expected.ok) {
                if (refusedBefore.has(attempt)) seen.succeededAfterRefusal += 1;
                records.set(recordKey, { fingerprint, result: recordOf(command.operation, expected.value), expiresAt: clock.now() + IDEMPOTENCY_RECORD_MS });
              } else {
                refusedBefore.add(attempt);
              }
            }
          },
        ),
        { numRuns: runs(400) },
      );
      // The generator reaches every case the property speaks of, many times over at full strength; the unit tier's
      // tenth of the runs may miss a rare one (it once did), so it asks for nothing there.
      for (const [what, count] of Object.entries(seen)) expect(count, what).toBeGreaterThanOrEqual(share(10));
    },
  );

  it("another body under a used key is 'reused', for either operation, and changes nothing; the first body still replays", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Operation>('createPet', 'placeOrder'),
        fc.integer({ min: 0, max: 1 }),
        fc.array(fc.tuple(fc.constantFrom<Operation>('createPet', 'placeOrder'), fc.nat(4)), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: CALLERS.length - 1 }),
        async (operation, firstBody, others, callerIndex) => {
          const clock = new ManualClock(START);
          const sys = system(clock);
          await sys.catalog.create({ name: 'Ada', categoryId: 3 });
          await sys.catalog.create({ name: 'Bo', categoryId: 3 });
          const caller = CALLERS[callerIndex]!;
          const body = bodyOf(operation, firstBody); // bodies 0 and 1 succeed for both operations here
          const first = await idempotently(sys, caller, 'key', operation, body);
          if (first.kind !== 'ran' || !first.result.ok) throw new Error(`the first request should succeed: ${JSON.stringify(first)}`);
          const created = first.result.value;
          const after = await sys.state();
          for (const [otherOperation, otherIndex] of others) {
            const other = bodyOf(otherOperation, otherIndex);
            clock.advance(1_000);
            const outcome = await idempotently(sys, caller, 'key', otherOperation, other);
            const same = fingerprintOf(otherOperation, other) === fingerprintOf(operation, body);
            expect(outcome).toEqual(same ? { kind: 'replay', result: recordOf(operation, created) } : { kind: 'reused' });
            expect(await sys.state()).toEqual(after);
          }
          expect(await idempotently(sys, caller, 'key', operation, body)).toEqual({ kind: 'replay', result: recordOf(operation, created) });
          // The key is the caller's: under another API key it is a new request.
          const stranger: Caller = { id: 'another-api-key', role: 'customer' };
          expect((await idempotently(sys, stranger, 'key', 'createPet', { name: 'Rex', categoryId: 1 })).kind).toBe('ran');
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('a refused request (400, 404 or 409) leaves no record: a retry with the same key runs again, and once it succeeds it replays', async () => {
    type Refusal = 'bad_pet' | 'bad_order' | 'unknown_pet' | 'pending_pet' | 'sold_pet';
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Refusal>('bad_pet', 'bad_order', 'unknown_pet', 'pending_pet', 'sold_pet'),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: CALLERS.length - 1 }),
        async (refusal, retries, callerIndex) => {
          const clock = new ManualClock(START);
          const sys = system(clock);
          const caller = CALLERS[callerIndex]!;
          const staff = CALLERS[1]!;
          await sys.catalog.create({ name: 'Ada', categoryId: 3, status: refusal === 'sold_pet' ? 'sold' : 'available' });
          let holding: Order | undefined;
          if (refusal === 'pending_pet') {
            const placed = await sys.orders.place(staff, { petId: 1 });
            if (!placed.ok) throw new Error('setup');
            holding = placed.value;
          }
          const [operation, body, code]: [Operation, unknown, string] =
            refusal === 'bad_pet'
              ? ['createPet', { name: 'Rex', categoryId: 0 }, 'invalid_request']
              : refusal === 'bad_order'
                ? ['placeOrder', { petId: 1.5 }, 'invalid_request']
                : refusal === 'unknown_pet'
                  ? ['placeOrder', { petId: 2 }, 'not_found']
                  : ['placeOrder', { petId: 1 }, 'pet_unavailable'];
          const before = await sys.state();
          for (let attempt = 0; attempt < retries; attempt += 1) {
            const outcome = await idempotently(sys, caller, 'retry-me', operation, body);
            expect(outcome).toMatchObject({ kind: 'ran', result: { ok: false, error: { code } } });
            expect(await sys.state()).toEqual(before);
            expect(sys.records.size).toBe(0);
          }
          if (refusal === 'unknown_pet' || refusal === 'pending_pet') {
            // Make the same request possible (the pet appears, or its holding order is cancelled): the retry under the key runs and succeeds.
            if (refusal === 'unknown_pet') await sys.catalog.create({ name: 'Bo', categoryId: 3 });
            else expect((await sys.orders.cancel(staff, holding!.id)).ok).toBe(true);
            const retried = await idempotently(sys, caller, 'retry-me', operation, body);
            expect(retried).toMatchObject({ kind: 'ran', result: { ok: true } });
            if (retried.kind !== 'ran' || !retried.result.ok) return;
            const after = await sys.state();
            expect(await idempotently(sys, caller, 'retry-me', operation, body)).toEqual({ kind: 'replay', result: recordOf(operation, retried.result.value) });
            expect(await sys.state()).toEqual(after);
            return;
          }
          // The same request can never succeed; another body under the key is no reuse either: nothing was recorded.
          const other = { name: 'Other', categoryId: 9 };
          const ran = await idempotently(sys, caller, 'retry-me', 'createPet', other);
          expect(ran).toMatchObject({ kind: 'ran', result: { ok: true } });
          if (ran.kind !== 'ran' || !ran.result.ok) return;
          expect(await idempotently(sys, caller, 'retry-me', 'createPet', other)).toEqual({ kind: 'replay', result: recordOf('createPet', ran.result.value) });
          expect(await idempotently(sys, caller, 'retry-me', operation, body)).toEqual({ kind: 'reused' });
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
