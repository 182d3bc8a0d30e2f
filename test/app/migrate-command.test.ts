import { describe, expect, it } from 'vitest';
import { MIGRATION_LOCK } from '../../src/adapters/postgres/migrate.js';
import { readMigrations } from '../../src/adapters/postgres/migration-files.js';
import { MIGRATE_USAGE, runMigrateCommand } from '../../src/app/cli/migrate-command.js';
import { runPsql, useTestDatabase } from '../support/test-postgres.js';

const database = useTestDatabase();

const run = async (argv: readonly string[], environ: Record<string, string> = {}) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runMigrateCommand(argv, { DATABASE_URL: database.url, ...environ }, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
};

const latest = readMigrations().length;

describe('petstore migrate', () => {
  it('--dry-run names what it would apply and changes nothing; then applies each once; then has nothing to apply', async () => {
    const names = readMigrations().map(({ version, name }) => `  ${String(version).padStart(4, '0')}_${name}`);
    expect(await run(['--dry-run'])).toEqual({ code: 0, out: ['The schema is at version 0. Would apply, in one transaction:', ...names], err: [] });
    expect(await runPsql(database.url, "SELECT count(*) FROM pg_tables WHERE tablename = 'pets'")).toBe('0');

    const applied = await run([]);
    expect(applied.code).toBe(0);
    expect(applied.out.at(-1)).toBe(`The schema is now at version ${latest}.`);
    expect(await runPsql(database.url, 'SELECT version FROM petstore_schema_migrations ORDER BY version')).toBe(
      Array.from({ length: latest }, (_, i) => String(i + 1)).join('\n'),
    );
    expect(await run([])).toEqual({ code: 0, out: [`The schema is at version ${latest}, this petstore's latest: nothing to apply.`], err: [] });
  });

  it('waits for a migration another instance holds the lock for, longer than a request may wait, then finds it done', async () => {
    const holder = runPsql(database.url, `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}); SELECT pg_sleep(1.5);`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const migrated = await run([]);
    await holder;
    expect(migrated.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it('refuses a database whose schema is newer than this code, saying so, and applies nothing', async () => {
    await run([]);
    await runPsql(database.url, `INSERT INTO petstore_schema_migrations (version, name) VALUES (${latest + 1}, 'from_the_future')`);
    try {
      const refused = await run(['--dry-run']);
      expect(refused.code).toBe(1);
      expect(refused.err).toEqual([
        expect.stringMatching(new RegExp(`^petstore migrate: the database schema is at version ${latest + 1}, newer than this petstore's ${latest}`)),
      ]);
    } finally {
      await runPsql(database.url, `DELETE FROM petstore_schema_migrations WHERE version = ${latest + 1}`);
    }
  });

  it('runs on a schema a newer release expanded (its migration additive), saying so, and applies nothing', async () => {
    await run([]);
    await runPsql(database.url, `INSERT INTO petstore_schema_migrations (version, name, rollout) VALUES (${latest + 1}, 'from_the_next_release', 'expand')`);
    try {
      expect(await run([])).toEqual({
        code: 0,
        out: [`The schema is at version ${latest + 1}, ahead of this petstore by additive migrations (${String(latest + 1).padStart(4, '0')}_from_the_next_release): nothing to apply, and this petstore runs on it.`],
        err: [],
      });
    } finally {
      await runPsql(database.url, `DELETE FROM petstore_schema_migrations WHERE version = ${latest + 1}`);
    }
  });

  it('reports an unreachable database in one line naming DATABASE_URL without its password, exit 1', async () => {
    expect(await run([], { DATABASE_URL: 'postgres://shop:hunter2@127.0.0.1:1/shop' })).toEqual({
      code: 1,
      out: [],
      err: ['petstore migrate: PostgreSQL at postgres://shop:***@127.0.0.1:1/shop (DATABASE_URL) is unavailable (connection refused)'],
    });
  });

  it('answers a command line it cannot understand with the usage, exit 2', async () => {
    const { code, err } = await run(['--dry'], {});
    expect(code).toBe(2);
    expect(err[1]).toBe(MIGRATE_USAGE);
  });
});
