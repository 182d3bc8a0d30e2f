import type { Clock } from '../../index.js';
import {
  migrate,
  PostgresApiKeyRegistry,
  PostgresCreditLedger,
  PostgresIdempotencyStore,
  PostgresOrderRepository,
  PostgresPetRepository,
  readMigrations,
  type PostgresDatabase,
} from '../../postgres.js';
import { openPgliteDatabase, type PgliteDatabaseOptions } from './pglite-database.js';

/** Every record port on one PGlite: the PostgreSQL store's repositories over it. */
export interface PgliteStores {
  readonly database: PostgresDatabase;
  readonly pets: PostgresPetRepository;
  readonly orders: PostgresOrderRepository;
  readonly idempotency: PostgresIdempotencyStore;
  /** ApiKeyRegistry and KeyAdmin: the keys issued at run time. */
  readonly keys: PostgresApiKeyRegistry;
  readonly credits: PostgresCreditLedger;
  /** Ends the database (flushing what it wrote) and lets its directory go. */
  close(): Promise<void>;
}

export interface PgliteStoresOptions extends PgliteDatabaseOptions {
  /** The clock the records' times come from (a claim's expiry, a key's). */
  readonly clock: Clock;
}

/** Opens the database, brings its schema to this package's migrations, and builds the repositories on it. */
export async function openPgliteStores({ clock, ...options }: PgliteStoresOptions): Promise<PgliteStores> {
  const database = await openPgliteDatabase(options);
  try {
    await migrate(database, readMigrations());
  } catch (error) {
    await database.end();
    throw error;
  }
  return {
    database,
    pets: new PostgresPetRepository(database, clock),
    orders: new PostgresOrderRepository(database, clock),
    idempotency: new PostgresIdempotencyStore(database, clock),
    keys: new PostgresApiKeyRegistry(database, clock),
    credits: new PostgresCreditLedger(database),
    close: () => database.end(),
  };
}
