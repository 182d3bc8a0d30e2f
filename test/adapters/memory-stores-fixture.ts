import { MemoryIdempotencyRecords } from '../../src/adapters/memory/memory-idempotency-records.js';
import { MemoryIdempotencyStore } from '../../src/adapters/memory/memory-idempotency-store.js';
import { MemoryOrderRepository } from '../../src/adapters/memory/memory-order-repository.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import type { Clock } from '../../src/ports/clock.js';
import type { StoresFixture } from '../contracts/stores-fixture.js';
import { ManualClock } from '../support/manual-clock.js';

/** A whole day: the epoch of every manual clock here. */
export const START = 1_767_225_600_000;

/** Fresh memory stores wired as the app wires them: one records object shared by the three. */
export const memoryStores = (clock: Clock = new ManualClock(START)): StoresFixture & { readonly records: MemoryIdempotencyRecords } => {
  const records = new MemoryIdempotencyRecords(clock);
  const pets = new MemoryPetRepository(records);
  return {
    records,
    pets,
    orders: new MemoryOrderRepository(pets, records),
    idempotency: new MemoryIdempotencyStore(records),
    cleanup: async () => {},
  };
};
