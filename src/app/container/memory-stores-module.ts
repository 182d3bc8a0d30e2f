import { ContainerModule } from 'inversify';
import { MemoryApiKeyRegistry } from '../../adapters/memory/memory-api-key-registry.js';
import { MemoryPetRepository } from '../../adapters/memory/memory-pet-repository.js';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import { TOKENS } from './tokens.js';

/** Every port in this process: one instance, nothing kept across restarts. */
export const memoryStoresModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.petRepository).toResolvedValue(() => new MemoryPetRepository()).inSingletonScope();
  bind(TOKENS.apiKeyRegistry).toResolvedValue(() => new MemoryApiKeyRegistry()).inSingletonScope();
  bind(TOKENS.quotaStore)
    .toResolvedValue((clock) => new MemoryQuotaStore(clock), [TOKENS.clock])
    .inSingletonScope();
});
