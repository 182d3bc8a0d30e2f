import type { Clock } from '../../ports/clock.js';
import { MemoryIdempotencyRecords } from './memory-idempotency-records.js';
import { MemoryIdempotencyStore } from './memory-idempotency-store.js';
import { MemoryOrderRepository } from './memory-order-repository.js';
import { MemoryPetRepository } from './memory-pet-repository.js';

export interface MemoryStores {
  readonly pets: MemoryPetRepository;
  readonly orders: MemoryOrderRepository;
  readonly idempotency: MemoryIdempotencyStore;
}

/**
 * The pet, order and Idempotency-Key stores of one process, wired to each other: orders move
 * the very pets the pet store serves, and both complete the records the idempotency store begins.
 */
export function createMemoryStores(clock: Clock, { lastId }: { readonly lastId?: number } = {}): MemoryStores {
  const records = new MemoryIdempotencyRecords(clock);
  const pets = new MemoryPetRepository(records, lastId === undefined ? {} : { lastId });
  return { pets, orders: new MemoryOrderRepository(pets, records, lastId), idempotency: new MemoryIdempotencyStore(records) };
}
