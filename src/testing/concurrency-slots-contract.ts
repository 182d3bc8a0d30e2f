import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Clock } from '../ports/clock.js';
import type { ConcurrencySlots } from '../ports/concurrency-slots.js';
import { like, same } from './assertions.js';
import { checkOf, type ContractCheck, type ContractOptions, type Disposable } from './check.js';
import { ManualClock } from './manual-clock.js';

const START = 1_767_225_600_000;
/** The lease every store of the contract is made with. */
export const CONTRACT_LEASE_MS = 10_000;

type Step = { readonly kind: 'acquire' } | { readonly kind: 'release'; readonly pick: number } | { readonly kind: 'advance'; readonly ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'acquire' } as const) },
  { weight: 3, arbitrary: fc.nat(20).map((pick) => ({ kind: 'release', pick }) as const) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: CONTRACT_LEASE_MS }).map((ms) => ({ kind: 'advance', ms }) as const) },
);

export interface ConcurrencySlotsContractContext extends Disposable {
  readonly slots: ConcurrencySlots;
}

/**
 * What every ConcurrencySlots must do, whatever holds the leases: one check per rule. `create`
 * gets the clock the store must read its time from (the checks move it) and must make leases of
 * CONTRACT_LEASE_MS; it answers the slots, fresh or shared (every check uses subjects of its own),
 * and how to let them go.
 */
export const concurrencySlotsChecks = (create: (clock: Clock) => Promise<ConcurrencySlotsContractContext>, options: ContractOptions = {}): ContractCheck[] => {
  interface Context extends ConcurrencySlotsContractContext {
    readonly clock: ManualClock;
    subject(name: string): string;
  }
  const setup = async (): Promise<Context> => {
    const clock = new ManualClock(START);
    const made = await create(clock);
    const prefix = randomUUID();
    return { slots: made.slots, clock, subject: (name) => `${prefix}:${name}`, cleanup: async () => made.cleanup() };
  };
  const check = (name: string, body: (context: Context) => Promise<void>): ContractCheck => checkOf(name, setup, body);

  return [
    check('grants up to the limit, then refuses with the slots in flight and no lease', async ({ slots, subject }) => {
      const grants = [];
      for (let i = 0; i < 3; i++) grants.push(await slots.acquire(subject('a'), 3));
      same(grants.map(({ granted, inFlight }) => [granted, inFlight]), [
        [true, 1],
        [true, 2],
        [true, 3],
      ]);
      same(new Set(grants.map(({ lease }) => lease)).size, 3);
      same(await slots.acquire(subject('a'), 3), { granted: false, inFlight: 3, lease: undefined });
      same(await slots.inFlight(subject('a')), 3);
      same(await slots.inFlight(subject('never')), 0);
      // Another subject has slots of its own.
      same((await slots.acquire(subject('b'), 3)).granted, true);
    }),

    check('a release gives its slot back; a second release of it, or of a lease never given, changes nothing', async ({ slots, subject }) => {
      const first = await slots.acquire(subject('a'), 2);
      await slots.acquire(subject('a'), 2);
      await slots.release(subject('a'), first.lease!);
      await slots.release(subject('a'), first.lease!);
      await slots.release(subject('a'), 'no-such-lease');
      like(await slots.acquire(subject('a'), 2), { granted: true, inFlight: 2 });
      same((await slots.acquire(subject('a'), 2)).granted, false);
    }),

    check('a lease not released expires after the lease time, and its slot comes back', async ({ slots, clock, subject }) => {
      await slots.acquire(subject('a'), 1);
      clock.advance(CONTRACT_LEASE_MS - 1);
      same((await slots.acquire(subject('a'), 1)).granted, false);
      same(await slots.inFlight(subject('a')), 1);
      clock.advance(1);
      same(await slots.inFlight(subject('a')), 0);
      like(await slots.acquire(subject('a'), 1), { granted: true, inFlight: 1 });
    }),

    check('a lower limit refuses while the slots held reach it', async ({ slots, subject }) => {
      for (let i = 0; i < 3; i++) await slots.acquire(subject('a'), 3);
      same(await slots.acquire(subject('a'), 2), { granted: false, inFlight: 3, lease: undefined });
    }),

    check('of many acquires at once, exactly the limit are granted', async ({ slots, subject }) => {
      const grants = await Promise.all(Array.from({ length: 12 }, () => slots.acquire(subject('a'), 5)));
      same((grants.filter(({ granted }) => granted)).length, 5);
    }),

    check('never grants more than the limit unreleased and unexpired leases; a release or an expiry gives a slot back (a plain model)', async ({ slots, clock, subject }) => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(stepArb, { maxLength: 40 }), async (limit, steps) => {
          const name = subject(randomUUID());
          // The model: each held lease and its expiry.
          const held = new Map<string, number>();
          for (const step of steps) {
            if (step.kind === 'advance') {
              clock.advance(step.ms);
              continue;
            }
            for (const [lease, expiresAt] of held) if (expiresAt <= clock.now()) held.delete(lease);
            if (step.kind === 'release') {
              const lease = [...held.keys()][step.pick % Math.max(held.size, 1)];
              if (lease === undefined) continue;
              held.delete(lease);
              await slots.release(name, lease);
              continue;
            }
            same(await slots.inFlight(name), held.size);
            const grant = await slots.acquire(name, limit);
            const granted = held.size < limit;
            same(grant.granted, granted);
            if (grant.lease !== undefined) held.set(grant.lease, clock.now() + CONTRACT_LEASE_MS);
            same(grant.inFlight, held.size);
          }
        }),
        { numRuns: options.numRuns ?? 30 },
      );
    }),
  ];
};
