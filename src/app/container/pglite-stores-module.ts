import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { MemoryConcurrencySlots } from '../../adapters/memory/memory-concurrency-slots.js';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import { migrate } from '../../adapters/postgres/migrate.js';
import { readMigrations } from '../../adapters/postgres/migration-files.js';
import { openPgliteDatabase } from '../../adapters/postgres/pglite-database.js';
import { PostgresApiKeyRegistry } from '../../adapters/postgres/postgres-api-key-registry.js';
import { PostgresCreditLedger } from '../../adapters/postgres/postgres-credit-ledger.js';
import type { PostgresDatabase } from '../../adapters/postgres/postgres-database.js';
import { PostgresIdempotencyStore } from '../../adapters/postgres/postgres-idempotency-store.js';
import { PostgresOrderRepository } from '../../adapters/postgres/postgres-order-repository.js';
import { PostgresPetRepository } from '../../adapters/postgres/postgres-pet-repository.js';
import type { Clock } from '../../ports/clock.js';
import type { PetStoreConfig } from '../config/config.js';
import { bindIssuedKeys } from './issued-keys.js';
import { TOKENS } from './tokens.js';

const PGLITE: ServiceIdentifier<PostgresDatabase> = Symbol('PgliteDatabase');
const ISSUED_KEYS: ServiceIdentifier<PostgresApiKeyRegistry> = Symbol('IssuedKeys');

/**
 * The shop's records, keys and credit balances in PGlite (PostgreSQL in this process) in
 * PETSTORE_DATA_DIR, through the PostgreSQL store's own classes and migrations: kept across
 * restarts with no server to run. The directory is one process's (its lock refuses a second),
 * so the quota counters are in this process's memory too, as with `memory`: a restart resets
 * them, and there are no other instances to share them with.
 */
export const pgliteStoresModule = new ContainerModule(({ bind }) => {
  bind<PostgresDatabase>(PGLITE)
    .toResolvedValue(
      async (config: PetStoreConfig) => {
        if (config.dataDir === undefined) throw new Error('PETSTORE_STORE=pglite needs PETSTORE_DATA_DIR');
        // PETSTORE_PG_TIMEOUT_MS bounds a call's wait for its turn; nothing can cancel one under way.
        const db = await openPgliteDatabase({ dataDir: config.dataDir, ...(config.pgTimeoutMs === undefined ? {} : { timeoutMs: config.pgTimeoutMs }) });
        try {
          await migrate(db, readMigrations());
          return db;
        } catch (error) {
          await db.end();
          throw error;
        }
      },
      [TOKENS.config],
    )
    .inSingletonScope()
    .onDeactivation((db: PostgresDatabase) => db.end());
  bind(TOKENS.petRepository)
    .toResolvedValue((db: PostgresDatabase, clock: Clock) => new PostgresPetRepository(db, clock), [PGLITE, TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.orderRepository)
    .toResolvedValue((db: PostgresDatabase, clock: Clock) => new PostgresOrderRepository(db, clock), [PGLITE, TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.idempotencyStore)
    .toResolvedValue((db: PostgresDatabase, clock: Clock) => new PostgresIdempotencyStore(db, clock), [PGLITE, TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.creditLedger)
    .toResolvedValue((db: PostgresDatabase) => new PostgresCreditLedger(db), [PGLITE])
    .inSingletonScope();
  bind(ISSUED_KEYS)
    .toResolvedValue((db: PostgresDatabase, clock: Clock) => new PostgresApiKeyRegistry(db, clock), [PGLITE, TOKENS.clock])
    .inSingletonScope();
  bindIssuedKeys(bind, ISSUED_KEYS);
  bind(TOKENS.quotaStore)
    .toResolvedValue((clock: Clock) => new MemoryQuotaStore(clock), [TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.concurrencySlots)
    .toResolvedValue((clock: Clock) => new MemoryConcurrencySlots(clock), [TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.storeProbes).toResolvedValue((db: PostgresDatabase) => [{ store: 'pglite', ping: () => db.query('SELECT 1') }], [PGLITE]);
});
