import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { createMemoryStores, type MemoryStores } from '../../adapters/memory/memory-stores.js';
import type { Clock } from '../../ports/clock.js';
import { MemoryConcurrencySlots } from '../../adapters/memory/memory-concurrency-slots.js';
import { MemoryCreditLedger } from '../../adapters/memory/memory-credit-ledger.js';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import type { MemoryApiKeyRegistry } from '../../adapters/memory/memory-api-key-registry.js';
import { configuredKeys } from './configured-keys.js';
import { TOKENS } from './tokens.js';

const STORES: ServiceIdentifier<MemoryStores> = Symbol('MemoryStores');
const KEYS: ServiceIdentifier<MemoryApiKeyRegistry> = Symbol('MemoryApiKeys');

/** Every port in this process: one instance, nothing kept across restarts. */
export const memoryStoresModule = new ContainerModule(({ bind }) => {
  bind(STORES).toResolvedValue((clock: Clock) => createMemoryStores(clock), [TOKENS.clock]).inSingletonScope();
  bind(TOKENS.petRepository).toResolvedValue((stores: MemoryStores) => stores.pets, [STORES]);
  bind(TOKENS.orderRepository).toResolvedValue((stores: MemoryStores) => stores.orders, [STORES]);
  bind(TOKENS.idempotencyStore).toResolvedValue((stores: MemoryStores) => stores.idempotency, [STORES]);
  // The configured keys, and beside them the keys the admin API creates: in this process only, gone at a restart.
  bind(KEYS).toResolvedValue(configuredKeys, [TOKENS.config, TOKENS.clock]).inSingletonScope();
  // Resolved, not toService: a redirection would skip the activations of these tokens (traced-stores.ts).
  bind(TOKENS.apiKeyRegistry).toResolvedValue((keys: MemoryApiKeyRegistry) => keys, [KEYS]);
  bind(TOKENS.keyAdmin).toResolvedValue((keys: MemoryApiKeyRegistry) => keys, [KEYS]);
  bind(TOKENS.quotaStore)
    .toResolvedValue((clock) => new MemoryQuotaStore(clock), [TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.concurrencySlots)
    .toResolvedValue((clock) => new MemoryConcurrencySlots(clock), [TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.creditLedger)
    .toResolvedValue(() => new MemoryCreditLedger())
    .inSingletonScope();
  bind(TOKENS.storeProbes).toConstantValue([{ store: 'memory', ping: () => Promise.resolve() }]);
});
