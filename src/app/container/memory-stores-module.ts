import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { MemoryIdempotencyRecords } from '../../adapters/memory/memory-idempotency-records.js';
import { MemoryIdempotencyStore } from '../../adapters/memory/memory-idempotency-store.js';
import { MemoryOrderRepository } from '../../adapters/memory/memory-order-repository.js';
import { MemoryPetRepository } from '../../adapters/memory/memory-pet-repository.js';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import { configuredKeys } from './configured-keys.js';
import { TOKENS } from './tokens.js';

// Orders change the very pets the pet repository serves, and both complete the records the
// idempotency store begins: one instance of each, shared.
const RECORDS: ServiceIdentifier<MemoryIdempotencyRecords> = Symbol('MemoryIdempotencyRecords');
const PETS: ServiceIdentifier<MemoryPetRepository> = Symbol('MemoryPetRepository');

/** Every port in this process: one instance, nothing kept across restarts. */
export const memoryStoresModule = new ContainerModule(({ bind }) => {
  bind(RECORDS)
    .toResolvedValue((clock) => new MemoryIdempotencyRecords(clock), [TOKENS.clock])
    .inSingletonScope();
  bind(PETS)
    .toResolvedValue((records: MemoryIdempotencyRecords) => new MemoryPetRepository(records), [RECORDS])
    .inSingletonScope();
  bind(TOKENS.petRepository).toService(PETS);
  bind(TOKENS.orderRepository)
    .toResolvedValue((pets: MemoryPetRepository, records: MemoryIdempotencyRecords) => new MemoryOrderRepository(pets, records), [PETS, RECORDS])
    .inSingletonScope();
  bind(TOKENS.idempotencyStore)
    .toResolvedValue((records: MemoryIdempotencyRecords) => new MemoryIdempotencyStore(records), [RECORDS])
    .inSingletonScope();
  bind(TOKENS.apiKeyRegistry).toResolvedValue(configuredKeys, [TOKENS.config]).inSingletonScope();
  bind(TOKENS.quotaStore)
    .toResolvedValue((clock) => new MemoryQuotaStore(clock), [TOKENS.clock])
    .inSingletonScope();
});
