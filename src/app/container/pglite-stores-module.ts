import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { MemoryConcurrencySlots } from '../../adapters/memory/memory-concurrency-slots.js';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import { openPgliteStores, type PgliteStores } from '../../adapters/pglite/pglite-stores.js';
import type { Clock } from '../../ports/clock.js';
import type { PetStoreConfig } from '../config/config.js';
import { bindIssuedKeys } from './issued-keys.js';
import { TOKENS } from './tokens.js';

const PGLITE: ServiceIdentifier<PgliteStores> = Symbol('PgliteStores');
const ISSUED_KEYS: ServiceIdentifier<PgliteStores['keys']> = Symbol('IssuedKeys');

/**
 * The shop's records, keys and credit balances in PGlite (PostgreSQL in this process) in
 * PETSTORE_DATA_DIR, through the PostgreSQL store's own classes and migrations: kept across
 * restarts with no server to run. The directory is one process's (its lock refuses a second),
 * so the quota counters are in this process's memory too, as with `memory`: a restart resets
 * them, and there are no other instances to share them with.
 */
export const pgliteStoresModule = new ContainerModule(({ bind }) => {
  bind<PgliteStores>(PGLITE)
    .toResolvedValue(
      (config: PetStoreConfig, clock: Clock) => {
        if (config.dataDir === undefined) throw new Error('PETSTORE_STORE=pglite needs PETSTORE_DATA_DIR');
        // PETSTORE_PG_TIMEOUT_MS bounds a call's wait for its turn; nothing can cancel one under way.
        return openPgliteStores({ dataDir: config.dataDir, clock, ...(config.pgTimeoutMs === undefined ? {} : { timeoutMs: config.pgTimeoutMs }) });
      },
      [TOKENS.config, TOKENS.clock],
    )
    .inSingletonScope()
    .onDeactivation((stores: PgliteStores) => stores.close());
  bind(TOKENS.petRepository).toResolvedValue((stores: PgliteStores) => stores.pets, [PGLITE]);
  bind(TOKENS.orderRepository).toResolvedValue((stores: PgliteStores) => stores.orders, [PGLITE]);
  bind(TOKENS.idempotencyStore).toResolvedValue((stores: PgliteStores) => stores.idempotency, [PGLITE]);
  bind(TOKENS.creditLedger).toResolvedValue((stores: PgliteStores) => stores.credits, [PGLITE]);
  bind(ISSUED_KEYS).toResolvedValue((stores: PgliteStores) => stores.keys, [PGLITE]);
  bindIssuedKeys(bind, ISSUED_KEYS);
  bind(TOKENS.quotaStore)
    .toResolvedValue((clock: Clock) => new MemoryQuotaStore(clock), [TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.concurrencySlots)
    .toResolvedValue((clock: Clock) => new MemoryConcurrencySlots(clock), [TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.storeProbes).toResolvedValue((stores: PgliteStores) => [{ store: 'pglite', ping: () => stores.database.query('SELECT 1') }], [PGLITE]);
});
