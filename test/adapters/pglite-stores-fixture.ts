import { afterAll } from 'vitest';
import { openPgliteStores, type PgliteStores } from '../../src/adapters/pglite/pglite-stores.js';
import { SystemClock } from '../../src/index.js';
import { PostgresIdempotencyStore, PostgresOrderRepository, PostgresPetRepository, type PostgresDatabase } from '../../src/postgres.js';
import type { CreateStores } from '../contracts/stores-fixture.js';

export interface PgliteFixtures {
  /** The file's database, emptied: what a freshly migrated one holds. `drop` empties it again. */
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
 * One in-memory PGlite for the calling test file (closed after it), migrated once, opened at
 * first use. Opening one takes seconds (its initdb in WebAssembly) and a fixture is made per
 * test and per property run, so every fixture of the file shares it, emptied between them as
 * the PostgreSQL fixtures share an emptied schema: a file's tests run one after another.
 */
export function usePglite(): PgliteFixtures {
  let opened: Promise<PgliteStores> | undefined;
  afterAll(async () => {
    await (await opened)?.close();
  });
  return {
    async fresh() {
      // Generous: the machine's other tests share its two cores, and a wait here is no outage.
      const { database: db } = await (opened ??= openPgliteStores({ clock: new SystemClock(), timeoutMs: 30_000 }));
      await empty(db);
      return { db, drop: () => empty(db) };
    },
  };
}

/** The record stores over the file's emptied database. */
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
