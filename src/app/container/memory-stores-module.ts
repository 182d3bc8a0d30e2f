import { ContainerModule } from 'inversify';
import { MemoryPetRepository } from '../../adapters/memory/memory-pet-repository.js';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import { configuredKeys } from './configured-keys.js';
import { TOKENS } from './tokens.js';

/** Every port in this process: one instance, nothing kept across restarts. */
export const memoryStoresModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.petRepository).toResolvedValue(() => new MemoryPetRepository()).inSingletonScope();
  bind(TOKENS.apiKeyRegistry).toResolvedValue(configuredKeys, [TOKENS.config]).inSingletonScope();
  bind(TOKENS.quotaStore)
    .toResolvedValue((clock) => new MemoryQuotaStore(clock), [TOKENS.clock])
    .inSingletonScope();
});
