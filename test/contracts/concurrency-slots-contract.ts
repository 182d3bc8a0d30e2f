import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import type { ConcurrencySlots } from '../../src/ports/concurrency-slots.js';
import { ManualClock } from '../support/manual-clock.js';
import { runs } from '../support/property-runs.js';

const START = 1_767_225_600_000;
/** The lease every store of the contract is made with. */
export const CONTRACT_LEASE_MS = 10_000;

type Step = { readonly kind: 'acquire' } | { readonly kind: 'release'; readonly pick: number } | { readonly kind: 'advance'; readonly ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'acquire' } as const) },
  { weight: 3, arbitrary: fc.nat(20).map((pick) => ({ kind: 'release', pick }) as const) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: CONTRACT_LEASE_MS }).map((ms) => ({ kind: 'advance', ms }) as const) },
);

/**
 * What every ConcurrencySlots must do, whatever holds the leases. The factory gets the clock the
 * store must read its time from, and makes leases of CONTRACT_LEASE_MS.
 */
export const describeConcurrencySlotsContract = (
  adapterName: string,
  create: (clock: Clock) => Promise<{ slots: ConcurrencySlots; cleanup(): Promise<void> }>,
): void => {
  describe(`ConcurrencySlots contract: ${adapterName}`, () => {
    let clock: ManualClock;
    let slots: ConcurrencySlots;
    let cleanup: () => Promise<void>;
    // Stores may outlive one test (Redis): every test uses subjects of its own.
    let prefix: string;
    const subject = (name: string): string => `${prefix}:${name}`;

    beforeEach(async () => {
      clock = new ManualClock(START);
      ({ slots, cleanup } = await create(clock));
      prefix = randomUUID();
    });
    afterEach(async () => {
      await cleanup();
    });

    it('grants up to the limit, then refuses with the slots in flight and no lease', async () => {
      const grants = [];
      for (let i = 0; i < 3; i++) grants.push(await slots.acquire(subject('a'), 3));
      expect(grants.map(({ granted, inFlight }) => [granted, inFlight])).toEqual([
        [true, 1],
        [true, 2],
        [true, 3],
      ]);
      expect(new Set(grants.map(({ lease }) => lease)).size).toBe(3);
      expect(await slots.acquire(subject('a'), 3)).toEqual({ granted: false, inFlight: 3, lease: undefined });
      expect(await slots.inFlight(subject('a'))).toBe(3);
      expect(await slots.inFlight(subject('never'))).toBe(0);
      // Another subject has slots of its own.
      expect((await slots.acquire(subject('b'), 3)).granted).toBe(true);
    });

    it('a release gives its slot back; a second release of it, or of a lease never given, changes nothing', async () => {
      const first = await slots.acquire(subject('a'), 2);
      await slots.acquire(subject('a'), 2);
      await slots.release(subject('a'), first.lease!);
      await slots.release(subject('a'), first.lease!);
      await slots.release(subject('a'), 'no-such-lease');
      expect(await slots.acquire(subject('a'), 2)).toMatchObject({ granted: true, inFlight: 2 });
      expect((await slots.acquire(subject('a'), 2)).granted).toBe(false);
    });

    it('a lease not released expires after the lease time, and its slot comes back', async () => {
      await slots.acquire(subject('a'), 1);
      clock.advance(CONTRACT_LEASE_MS - 1);
      expect((await slots.acquire(subject('a'), 1)).granted).toBe(false);
      expect(await slots.inFlight(subject('a'))).toBe(1);
      clock.advance(1);
      expect(await slots.inFlight(subject('a'))).toBe(0);
      expect(await slots.acquire(subject('a'), 1)).toMatchObject({ granted: true, inFlight: 1 });
    });

    it('a lower limit refuses while the slots held reach it', async () => {
      for (let i = 0; i < 3; i++) await slots.acquire(subject('a'), 3);
      expect(await slots.acquire(subject('a'), 2)).toEqual({ granted: false, inFlight: 3, lease: undefined });
    });

    it('of many acquires at once, exactly the limit are granted', async () => {
      const grants = await Promise.all(Array.from({ length: 12 }, () => slots.acquire(subject('a'), 5)));
      expect(grants.filter(({ granted }) => granted)).toHaveLength(5);
    });

    it('never grants more than the limit unreleased and unexpired leases; a release or an expiry gives a slot back (a plain model)', async () => {
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
            expect(await slots.inFlight(name)).toBe(held.size);
            const grant = await slots.acquire(name, limit);
            const granted = held.size < limit;
            expect(grant.granted).toBe(granted);
            if (grant.lease !== undefined) held.set(grant.lease, clock.now() + CONTRACT_LEASE_MS);
            expect(grant.inFlight).toBe(held.size);
          }
        }),
        { numRuns: runs(30) },
      );
    });
  });
};
