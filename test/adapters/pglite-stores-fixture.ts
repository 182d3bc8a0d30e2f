import { afterAll } from 'vitest';
import { migrate } from '../../src/adapters/postgres/migrate.js';
import { readMigrations } from '../../src/adapters/postgres/migration-files.js';
import { openPgliteDatabase } from '../../src/adapters/postgres/pglite-database.js';
import type { PostgresDatabase } from '../../src/adapters/postgres/postgres-database.js';
import { PostgresIdempotencyStore } from '../../src/adapters/postgres/postgres-idempotency-store.js';
import { PostgresOrderRepository } from '../../src/adapters/postgres/postgres-order-repository.js';
import { PostgresPetRepository } from '../../src/adapters/postgres/postgres-pet-repository.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import type { CreateStores } from '../contracts/stores-fixture.js';

export interface PgliteFixtures {
  /** The suite's database, emptied: what a freshly migrated one holds. `drop` empties it again. */
  fresh(): Promise<{ readonly db: PostgresDatabase; drop(): Promise<void> }>;
}

/** Truncates every table but the migrations' and restarts their identities at 1. */
const empty = async (db: PostgresDatabase): Promise<void> => {
  const { rows } = await db.query<{ tables: string | null }>(
    "SELECT string_agg(format('%I', tablename), ', ') AS tables FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'petstore_schema_migrations'",
  );
  const tables = rows[0]?.tables;
  if (tables === null || tables === undefined) throw new Error('usePglite: no tables to empty');
  await db.query(`TRUNCATE ${tables} RESTART IDENTITY CASCADE`);
};

/**
 * A fresh in-memory PGlite for the calling describe block (closed after it), migrated once.
 * A fixture is made per test and per property run, and opening a PGlite takes seconds (its
 * initdb in WebAssembly), so fixtures share the block's database, emptied between them as the
 * PostgreSQL fixtures share an emptied schema.
 */
export function usePglite(): PgliteFixtures {
  let opened: Promise<PostgresDatabase> | undefined;
  afterAll(async () => {
    await (await opened)?.end();
  });
  const database = (): Promise<PostgresDatabase> =>
    (opened ??= (async () => {
      // Generous: the machine's other tests share its two cores, and a wait here is no outage.
      const db = await openPgliteDatabase({ timeoutMs: 30_000 });
      await migrate(db, readMigrations());
      return db;
    })());
  return {
    async fresh() {
      const db = await database();
      await empty(db);
      return { db, drop: () => empty(db) };
    },
  };
}

/** The record stores over the block's emptied database. */
export const pgliteStores =
  (fixtures: PgliteFixtures): CreateStores =>
  async () => {
    const { db, drop } = await fixtures.fresh();
    const clock = new SystemClock();
    return {
      pets: new PostgresPetRepository(db, clock),
      orders: new PostgresOrderRepository(db, clock),
      idempotency: new PostgresIdempotencyStore(db, clock),
      cleanup: drop,
    };
  };
