import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, SchemaTooNewError } from '../../src/adapters/postgres/migrate.js';
import { readMigrations, type Migration } from '../../src/adapters/postgres/migration-files.js';
import { PostgresOrderRepository } from '../../src/adapters/postgres/postgres-order-repository.js';
import { PostgresPetRepository } from '../../src/adapters/postgres/postgres-pet-repository.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { usePostgresSchemas } from './postgres-stores-fixture.js';

/*
 * A rollout: the next release migrates, while instances of this one (the release before it) still
 * run, restart, or come back in a rollback. This release is the code of this repository with its
 * migrations; the next one is the same list and one migration more.
 */

const schemas = usePostgresSchemas();
const released = readMigrations();
const next = (rollout: Migration['rollout'], sql: string, name = 'next_release'): Migration => ({
  version: released.length + 1,
  name,
  rollout,
  sql: `-- rollout: ${rollout}\n${sql}`,
});

/** This release's code path on the schema: it starts (migrate), then creates, reads and orders. */
async function runThisRelease(db: Parameters<typeof migrate>[0]): Promise<void> {
  await migrate(db, released);
  const clock = new SystemClock();
  const pets = new PostgresPetRepository(db, clock);
  const orders = new PostgresOrderRepository(db, clock);
  const pet = await pets.create({ name: 'Rex', categoryId: 1, status: 'available' });
  expect(await pets.get(pet.id)).toEqual(pet);
  expect(await orders.place({ petId: pet.id, ownerId: 'owner-1', placedAt: new Date().toISOString() })).toMatchObject({ kind: 'placed' });
  expect(await pets.get(pet.id)).toMatchObject({ status: 'pending' });
}

describe('migrations a rollout survives (expand, then contract)', () => {
  it('every migration of this release declares its rollout', () => {
    for (const migration of released) expect(['expand', 'contract']).toContain(migration.rollout);
  });

  it('a migration file without its rollout line is refused, saying what to write', () => {
    const folder = mkdtempSync(join(tmpdir(), 'petstore-migrations-'));
    try {
      writeFileSync(join(folder, '0001_first.sql'), 'CREATE TABLE t (id int);');
      expect(() => readMigrations(folder)).toThrow(/0001_first\.sql: a migration declares how the release before it meets it.*"-- rollout: expand"/);
    } finally {
      rmSync(folder, { recursive: true });
    }
  });

  it('this release starts and serves on the schema of the next one when its migration is additive (expand), and says so', async () => {
    const { db, drop } = await schemas.fresh([...released, next('expand', 'ALTER TABLE pets ADD COLUMN nickname text; CREATE TABLE pet_notes (pet_id bigint, note text);')]);
    try {
      const report = await migrate(db, released);
      expect(report).toEqual({ from: released.length + 1, pending: [], newer: [{ version: released.length + 1, name: 'next_release', rollout: 'expand' }] });
      await runThisRelease(db);
    } finally {
      await drop();
    }
  });

  it('this release refuses to start on the next one\'s schema when its migration is not additive (contract), naming it, and changes nothing', async () => {
    const { db, drop } = await schemas.fresh([...released, next('contract', 'ALTER TABLE pets RENAME COLUMN name TO title;', 'pet_titles')]);
    try {
      const refused = await migrate(db, released).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SchemaTooNewError);
      expect((refused as Error).message).toBe(
        `the database schema is at version ${released.length + 1}, newer than this petstore's ${released.length}, and ` +
          `${String(released.length + 1).padStart(4, '0')}_pet_titles is not additive (rollout: contract): ` +
          'run the petstore release that applied it (or a newer one); this one refuses to start',
      );
    } finally {
      await drop();
    }
  });

  it('two releases ahead: refused if any migration it does not know contracts, whatever comes after', async () => {
    const expand = next('expand', 'CREATE TABLE pet_notes (pet_id bigint, note text);');
    const contract: Migration = { ...next('contract', 'ALTER TABLE pet_notes DROP COLUMN note;', 'drop_notes'), version: released.length + 2 };
    const { db, drop } = await schemas.fresh([...released, expand, contract]);
    try {
      await expect(migrate(db, released)).rejects.toThrow(/_drop_notes is not additive/);
      // The release that applied the expand knows it: only the contract is new to it.
      await expect(migrate(db, [...released, expand])).rejects.toThrow(/newer than this petstore's \d+, and \d{4}_drop_notes is not additive/);
      expect((await migrate(db, [...released, expand, contract])).newer).toEqual([]);
    } finally {
      await drop();
    }
  });

  it('a migration recorded without its rollout (by hand, or by an older migrator) counts as contract', async () => {
    const { db, drop } = await schemas.fresh([...released]);
    try {
      await db.query("INSERT INTO petstore_schema_migrations (version, name) VALUES ($1, 'by_hand')", [released.length + 1]);
      await expect(migrate(db, released)).rejects.toThrow(/_by_hand is not additive/);
    } finally {
      await drop();
    }
  });
});
