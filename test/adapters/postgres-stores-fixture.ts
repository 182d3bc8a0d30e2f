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
   * A fresh schema of the file's test database, migrated (by every migration, or by those given),
   * and a database whose search_path is it; `drop` removes both.
   */
  fresh(migrations?: readonly Migration[]): Promise<{ readonly db: PostgresDatabase; readonly schema: string; drop(): Promise<void> }>;
  readonly url: string;
}

/** A test database for the file (dropped after it), and in it a schema per fixture, so every test starts empty. */
export function usePostgresSchemas(): PostgresSchemas {
  const database = useTestDatabase();
  let admin: PostgresDatabase | undefined;
  beforeAll(() => {
    admin = createPostgresDatabase({ url: database.url, max: 2, timeoutMs: 10_000 });
  });
  afterAll(async () => {
    await admin?.end();
  });
  return {
    get url() {
      return database.url;
    },
    async fresh(migrations = readMigrations()) {
      if (admin === undefined) throw new Error('usePostgresSchemas: fresh() is for tests, after beforeAll');
      const schema = `t_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE SCHEMA ${schema}`);
      const db = createPostgresDatabase({ url: database.url, max: 10, timeoutMs: 10_000, searchPath: schema });
      await migrate(db, migrations);
      const owner = admin;
      return {
        db,
        schema,
        drop: async () => {
          await db.end();
          await owner.query(`DROP SCHEMA ${schema} CASCADE`);
        },
      };
    },
  };
}

/** The record stores over a fresh schema. */
export const postgresStores =
  (schemas: PostgresSchemas): CreateStores =>
  async () => {
    const { db, drop } = await schemas.fresh();
    const clock = new SystemClock();
    return {
      pets: new PostgresPetRepository(db, clock),
      orders: new PostgresOrderRepository(db, clock),
      idempotency: new PostgresIdempotencyStore(db, clock),
      cleanup: drop,
    };
  };
