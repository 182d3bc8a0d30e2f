import type { Migration } from './migration-files.js';
import type { PostgresDatabase } from './postgres-database.js';

/** A migration, or the wait for another instance's, may take far longer than a request may. */
const MIGRATION_TIMEOUT_MS = 300_000;

/** Held for the whole migration by every instance that migrates: the first applies, the others then find nothing to do. */
export const MIGRATION_LOCK = 0x7065_7473_746f_7265n; // "petstore"

export interface MigrationReport {
  /** The schema's version before: 0 for an empty database. */
  readonly from: number;
  /** What was applied, or with `dryRun` what would be. */
  readonly pending: readonly Migration[];
}

/** The database's schema is newer than this code knows: an older instance must not write to it. */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly databaseVersion: number,
    readonly codeVersion: number,
  ) {
    super(
      `the database schema is at version ${databaseVersion}, newer than this petstore's ${codeVersion}: ` +
        'run the petstore release that applied it (or a newer one); this one refuses to start',
    );
  }
}

/**
 * Applies the pending migrations in one transaction under an advisory lock, so instances
 * starting together apply each exactly once and a failed migration leaves nothing half done.
 */
export async function migrate(db: PostgresDatabase, migrations: readonly Migration[], options: { readonly dryRun?: boolean } = {}): Promise<MigrationReport> {
  const codeVersion = migrations.length === 0 ? 0 : (migrations[migrations.length - 1]?.version ?? 0);
  return db.transaction(
    async (session) => {
    await session.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    await session.script(`CREATE TABLE IF NOT EXISTS petstore_schema_migrations (
                          version    integer     PRIMARY KEY,
                          name       text        NOT NULL,
                          applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await session.query<{ version: number | null }>('SELECT max(version) AS version FROM petstore_schema_migrations');
    const from = rows[0]?.version ?? 0;
    if (from > codeVersion) throw new SchemaTooNewError(from, codeVersion);
    const pending = migrations.filter((migration) => migration.version > from);
    if (options.dryRun === true) return { from, pending };
    for (const migration of pending) {
      await session.script(migration.sql);
      await session.query('INSERT INTO petstore_schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    return { from, pending };
    },
    { timeoutMs: MIGRATION_TIMEOUT_MS },
  );
}
