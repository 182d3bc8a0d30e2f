import type { Migration, Rollout } from './migration-files.js';
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
  /** Migrations of a newer release the database has and this code does not know: all `expand`, or this code would have refused. */
  readonly newer: readonly AppliedMigration[];
}

/** A migration as the database records it. */
export interface AppliedMigration {
  readonly version: number;
  readonly name: string;
  /** NULL for a migration recorded before rollouts were (and one recorded by hand): taken as `contract`. */
  readonly rollout: Rollout | null;
}

/** `0004_pet_counts`: a migration as its file is named. */
const migrationFileName = ({ version, name }: { readonly version: number; readonly name: string }): string => `${String(version).padStart(4, '0')}_${name}`;

/** The database's schema has a migration this code does not know and cannot run beside: an older instance must not write to it. */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly databaseVersion: number,
    readonly codeVersion: number,
    readonly contracting: readonly AppliedMigration[],
  ) {
    super(
      `the database schema is at version ${databaseVersion}, newer than this petstore's ${codeVersion}, and ` +
        `${contracting.map(migrationFileName).join(', ')} ${contracting.length === 1 ? 'is' : 'are'} not additive (rollout: contract): ` +
        'run the petstore release that applied it (or a newer one); this one refuses to start',
    );
  }
}

/**
 * Applies the pending migrations in one transaction under an advisory lock, so instances
 * starting together apply each exactly once and a failed migration leaves nothing half done.
 * On a schema newer than this code (a rollout under way, or a rollback) it applies nothing and
 * runs if every migration it does not know is `expand`, and refuses otherwise.
 */
export async function migrate(db: PostgresDatabase, migrations: readonly Migration[], options: { readonly dryRun?: boolean } = {}): Promise<MigrationReport> {
  const codeVersion = migrations.length === 0 ? 0 : (migrations[migrations.length - 1]?.version ?? 0);
  return db.transaction(
    async (session) => {
      await session.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
      await session.script(`CREATE TABLE IF NOT EXISTS petstore_schema_migrations (
                            version    integer     PRIMARY KEY,
                            name       text        NOT NULL,
                            applied_at timestamptz NOT NULL DEFAULT now());
                          -- How the release before each migration meets it (migration-files.ts), for releases that do not know it.
                          ALTER TABLE petstore_schema_migrations ADD COLUMN IF NOT EXISTS rollout text`);
      const { rows } = await session.query<{ version: number | null }>('SELECT max(version) AS version FROM petstore_schema_migrations');
      const from = rows[0]?.version ?? 0;
      if (from > codeVersion) {
        const { rows: newer } = await session.query<AppliedMigration>(
          'SELECT version, name, rollout FROM petstore_schema_migrations WHERE version > $1 ORDER BY version',
          [codeVersion],
        );
        const contracting = newer.filter((migration) => migration.rollout !== 'expand');
        if (contracting.length > 0) throw new SchemaTooNewError(from, codeVersion, contracting);
        return { from, pending: [], newer };
      }
      const pending = migrations.filter((migration) => migration.version > from);
      if (options.dryRun === true) return { from, pending, newer: [] };
      for (const migration of pending) {
        await session.script(migration.sql);
        await session.query('INSERT INTO petstore_schema_migrations (version, name, rollout) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          migration.rollout,
        ]);
      }
      return { from, pending, newer: [] };
    },
    { timeoutMs: MIGRATION_TIMEOUT_MS },
  );
}
