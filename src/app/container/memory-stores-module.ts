import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { createMemoryStores, type MemoryStores } from '../../adapters/memory/memory-stores.js';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import { configuredKeys } from './configured-keys.js';
import { TOKENS } from './tokens.js';

const STORES: ServiceIdentifier<MemoryStores> = Symbol('MemoryStores');

/** Every port in this process: one instance, nothing kept across restarts. */
export const memoryStoresModule = new ContainerModule(({ bind }) => {
  bind(STORES).toResolvedValue(createMemoryStores, [TOKENS.clock]).inSingletonScope();
  bind(TOKENS.petRepository).toResolvedValue((stores: MemoryStores) => stores.pets, [STORES]);
  bind(TOKENS.orderRepository).toResolvedValue((stores: MemoryStores) => stores.orders, [STORES]);
  bind(TOKENS.idempotencyStore).toResolvedValue((stores: MemoryStores) => stores.idempotency, [STORES]);
  bind(TOKENS.apiKeyRegistry).toResolvedValue(configuredKeys, [TOKENS.config]).inSingletonScope();
  bind(TOKENS.quotaStore)
    .toResolvedValue((clock) => new MemoryQuotaStore(clock), [TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.storeProbes).toConstantValue([{ store: 'memory', ping: () => Promise.resolve() }]);
});
