import { describe, expect, it } from 'vitest';
import { MemoryConcurrencySlots } from '../../src/adapters/memory/memory-concurrency-slots.js';
import { CONTRACT_LEASE_MS, describeConcurrencySlotsContract } from '../contracts/concurrency-slots-contract.js';
import { ManualClock } from '../support/manual-clock.js';

describeConcurrencySlotsContract('memory', async (clock) => ({
  slots: new MemoryConcurrencySlots(clock, { leaseMs: CONTRACT_LEASE_MS }),
  cleanup: async () => {},
}));

describe('MemoryConcurrencySlots', () => {
  it('without a lease time, holds a slot until it is released, however long', () => {
    const clock = new ManualClock(0);
    const slots = new MemoryConcurrencySlots(clock);
    const { lease } = slots.acquire('a', 1);
    clock.advance(365 * 86_400_000);
    expect(slots.acquire('a', 1).granted).toBe(false);
    slots.release('a', lease!);
    expect(slots.acquire('a', 1).granted).toBe(true);
  });
});
