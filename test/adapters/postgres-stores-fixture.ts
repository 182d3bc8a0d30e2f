import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { migrate } from '../../src/adapters/postgres/migrate.js';
import { readMigrations, type Migration } from '../../src/adapters/postgres/migration-files.js';
import { PostgresIdempotencyStore } from '../../src/adapters/postgres/postgres-idempotency-store.js';
import { PostgresOrderRepository } from '../../src/adapters/postgres/postgres-order-repository.js';
import { PostgresPetRepository } from '../../src/adapters/postgres/postgres-pet-repository.js';
import { createPostgresDatabase, type PostgresDatabase } from '../../src/adapters/postgres/postgres-database.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import type { CreateStores } from '../contracts/stores-fixture.js';
import { useTestDatabase } from '../support/test-postgres.js';

export interface PostgresSchemas {
  /**
   * An empty schema of the file's test database, migrated (by every migration, or by those given),
   * and a database whose search_path is it; `drop` releases both.
   */
  fresh(migrations?: readonly Migration[]): Promise<{ readonly db: PostgresDatabase; readonly schema: string; drop(): Promise<void> }>;
  readonly url: string;
}

/** A schema migrated by every migration, and the database on it, between two fixtures. */
interface Emptied {
  readonly db: PostgresDatabase;
  readonly schema: string;
}

/**
 * A test database for the file (dropped after it), and in it a schema per fixture, so every test
 * starts empty.
 *
 * A fixture migrated by every migration is emptied when it is dropped (every table but the
 * migrations' truncated, its identities restarted at 1) and handed, with its database, to the
 * next such fixture: a fixture is what the property runs and the tests of a store make most, and
 * a new one cost some 430 ms (a schema created, migrated and dropped, and above all the first
 * statement on each new connection, which waits 170 ms for the client's array-type query that
 * enable_seqscan=off makes slow) where emptying one costs some 40 ms. A fixture of some
 * migrations only is a schema of its own, dropped after it.
 */
export function usePostgresSchemas(): PostgresSchemas {
  const database = useTestDatabase();
  let admin: PostgresDatabase | undefined;
  const emptied: Emptied[] = [];
  const opened = new Set<PostgresDatabase>();
  beforeAll(() => {
    admin = createPostgresDatabase({ url: database.url, max: 2, timeoutMs: 10_000 });
  });
  afterAll(async () => {
    // The file's database is dropped after this (useTestDatabase), its schemas with it.
    await Promise.all([...opened].map((db) => db.end()));
    await admin?.end();
  });
  const create = async (migrations: readonly Migration[]): Promise<Emptied> => {
    if (admin === undefined) throw new Error('usePostgresSchemas: fresh() is for tests, after beforeAll');
    const schema = `t_${randomBytes(6).toString('hex')}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    const db = createPostgresDatabase({ url: database.url, max: 10, timeoutMs: 10_000, searchPath: schema });
    opened.add(db);
    await migrate(db, migrations);
    return { db, schema };
  };
  return {
    get url() {
      return database.url;
    },
    async fresh(migrations?: readonly Migration[]) {
      if (migrations !== undefined) {
        const { db, schema } = await create(migrations);
        const owner = admin!;
        return {
          db,
          schema,
          drop: async () => {
            opened.delete(db);
            await db.end();
            await owner.query(`DROP SCHEMA ${schema} CASCADE`);
          },
        };
      }
      const { db, schema } = emptied.pop() ?? (await create(readMigrations()));
      let dropped = false;
      return {
        db,
        schema,
        drop: async () => {
          if (dropped) return;
          dropped = true;
          await empty(db, schema);
          emptied.push({ db, schema });
        },
      };
    },
  };
}

/** Truncates every table of `schema` but the migrations' and restarts their identities at 1: what a freshly migrated schema holds. */
const empty = async (db: PostgresDatabase, schema: string): Promise<void> => {
  const { rows } = await db.query<{ tables: string | null }>(
    `SELECT string_agg(format('%I.%I', schemaname, tablename), ', ') AS tables FROM pg_tables WHERE schemaname = $1 AND tablename <> 'petstore_schema_migrations'`,
    [schema],
  );
  const tables = rows[0]?.tables;
  if (tables === null || tables === undefined) throw new Error(`usePostgresSchemas: schema ${schema} has no tables to empty`);
  await db.query(`TRUNCATE ${tables} RESTART IDENTITY CASCADE`);
};

/** The record stores over a fresh schema; `prepare` sets it up first (e.g. its sequences). */
export const postgresStores =
  (schemas: PostgresSchemas, prepare: (db: PostgresDatabase) => Promise<void> = async () => {}): CreateStores =>
  async () => {
    const { db, drop } = await schemas.fresh();
    await prepare(db);
    const clock = new SystemClock();
    return {
      pets: new PostgresPetRepository(db, clock),
      orders: new PostgresOrderRepository(db, clock),
      idempotency: new PostgresIdempotencyStore(db, clock),
      cleanup: drop,
    };
  };
