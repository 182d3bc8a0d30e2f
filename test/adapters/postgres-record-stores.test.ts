import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/adapters/postgres/migrate.js';
import { readMigrations } from '../../src/adapters/postgres/migration-files.js';
import { PostgresIdempotencyStore } from '../../src/adapters/postgres/postgres-idempotency-store.js';
import { PostgresOrderRepository } from '../../src/adapters/postgres/postgres-order-repository.js';
import { PostgresPetRepository } from '../../src/adapters/postgres/postgres-pet-repository.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { IdsExhaustedError } from '../../src/domain/errors.js';
import { MAX_ID } from '../../src/domain/pets/pet.js';
import { IDEMPOTENCY_IN_FLIGHT_MS, IDEMPOTENCY_MARK_RESOLUTION_MS } from '../../src/ports/idempotency-store.js';
import { describeIdempotencyStoreContract } from '../contracts/idempotency-store-contract.js';
import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import { claimOf } from '../contracts/stores-fixture.js';
import { ManualClock } from '../support/manual-clock.js';
import { postgresStores, usePostgresSchemas } from './postgres-stores-fixture.js';
import { runs } from '../support/property-runs.js';

const schemas = usePostgresSchemas();

describePetRepositoryContract('PostgresPetRepository', postgresStores(schemas), { numRuns: runs(30) });
describeOrderRepositoryContract('PostgresOrderRepository', postgresStores(schemas), { numRuns: runs(30) });
describeIdempotencyStoreContract('PostgresIdempotencyStore', postgresStores(schemas));

describe('PostgresPetRepository at the top of the id range', () => {
  it('keeps ids exact up to 2^53-1 through create, get and a page, and refuses to go past it', async () => {
    const { db, drop } = await schemas.fresh();
    try {
      const pets = new PostgresPetRepository(db, new SystemClock());
      await db.query(`ALTER TABLE pets ALTER COLUMN id RESTART WITH ${MAX_ID - 1}`);
      const below = await pets.create({ name: 'Rex', categoryId: MAX_ID, status: 'available' });
      const top = await pets.create({ name: 'Tom', categoryId: 1, status: 'sold' });
      expect([below.id, top.id]).toEqual([MAX_ID - 1, MAX_ID]);
      expect(await pets.get(MAX_ID)).toEqual(top);
      expect(await pets.pageJson({ afterId: MAX_ID - 2, limit: 1 })).toEqual({ json: JSON.stringify([below]), moreAfter: MAX_ID - 1 });
      expect(await pets.pageJson({ afterId: MAX_ID - 1, limit: 5 })).toEqual({ json: JSON.stringify([top]), moreAfter: undefined });
      await expect(pets.create({ name: 'Max', categoryId: 1, status: 'available' })).rejects.toBeInstanceOf(IdsExhaustedError);
    } finally {
      await drop();
    }
  });
});

/** Every node of a plan in EXPLAIN's JSON, its inner plans included. */
const planNodes = (node: Record<string, unknown>): Record<string, unknown>[] => [
  node,
  ...((node['Plans'] as Record<string, unknown>[] | undefined) ?? []).flatMap(planNodes),
];

/** A value of each type the statements bind, for EXPLAIN EXECUTE. */
const SAMPLE_VALUES: Readonly<Record<string, string>> = {
  bigint: '0',
  integer: '20',
  text: "'approved'",
  'bigint[]': "'{0}'",
  'integer[]': "'{20}'",
  'text[]': "'{pending}'",
};

describe('PostgreSQL reads whose cost stays flat in the number of pets and orders', () => {
  it('plans every page, lookup and count the stores prepare as index range scans or lookups, none filtering rows it walked', async () => {
    const { db, drop } = await schemas.fresh();
    try {
      const clock = new SystemClock();
      const pets = new PostgresPetRepository(db, clock);
      const orders = new PostgresOrderRepository(db, clock);
      // Enough rows for the planner's statistics to tell a walk of the table from a range scan.
      await db.query("INSERT INTO pets (name, category_id, status) SELECT 'pet ' || g, 1, CASE WHEN g % 1000 = 0 THEN 'pending' ELSE 'available' END FROM generate_series(1, 20000) g");
      await db.query("INSERT INTO orders (pet_id, owner_id, status, placed_at) SELECT g, 'owner ' || (g % 7), 'placed', now() FROM generate_series(1, 5000) g");
      await db.query('ANALYZE pets, orders');
      // Each read once, as the service makes it: on the pipelined connection, whose prepared statements are read below.
      await pets.pageJson({ afterId: 0, limit: 20 });
      await pets.pageJson({ afterId: 0, limit: 20, status: 'sold' });
      await pets.get(1);
      for (const query of [{}, { status: 'approved' as const }, { ownerId: 'bob' }, { status: 'approved' as const, ownerId: 'bob' }]) {
        await orders.page({ afterId: 0, limit: 21, ...query });
      }
      await orders.get(1);
      const { rows: prepared } = await db.read<{ statement: string; types: string }>(
        "SELECT statement, array_to_string(parameter_types::text[], ',') AS types FROM pg_prepared_statements WHERE statement ~ '\\m(pets|orders|pet_counts)\\M' AND statement !~ 'pg_prepared_statements'",
      );
      // Two pet pages, a pet, four order pages, an order (a statement without parameters is not prepared: the inventory's, checked below).
      expect(prepared).toHaveLength(8);
      for (const [index, { statement, types: typeList }] of prepared.entries()) {
        const types = typeList.split(',');
        // The connection plans generically (plan_cache_mode), as for the service's own statements.
        await db.read(`PREPARE plan_check_${index} (${types.join(', ')}) AS ${statement}`);
        const { rows } = await db.read<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(
          `EXPLAIN (FORMAT JSON) EXECUTE plan_check_${index} (${types.map((type) => SAMPLE_VALUES[type] ?? 'NULL').join(', ')})`,
        );
        await db.read(`DEALLOCATE plan_check_${index}`);
        const scans = planNodes(rows[0]!['QUERY PLAN'][0].Plan).filter((node) => node['Relation Name'] === 'pets' || node['Relation Name'] === 'orders');
        for (const scan of scans) {
          expect(scan['Node Type'], statement).toMatch(/^Index (Only )?Scan$/);
          expect(scan['Index Cond'], statement).toBeDefined();
          expect(scan['Filter'], statement).toBeUndefined();
        }
      }
    } finally {
      await drop();
    }
  });

  it('answers the inventory without reading the pets: it answers while another transaction holds every pet locked', async () => {
    const { db, drop } = await schemas.fresh();
    try {
      const pets = new PostgresPetRepository(db, new SystemClock());
      await pets.create({ name: 'Rex', categoryId: 1, status: 'sold' });
      const counted = await db.transaction(async (session) => {
        await session.query('LOCK TABLE pets IN ACCESS EXCLUSIVE MODE');
        // On the pipelined connection, another session: a read of pets would wait for this transaction, which waits for it.
        return pets.countByStatus();
      });
      expect(counted).toEqual({ available: 0, pending: 0, sold: 1 });
    } finally {
      await drop();
    }
  });

  it('keeps the counts of 0004_pet_counts.sql exact through any statement on pets, one of a release that does not know them included, and from pets stored before it', async () => {
    const migrations = readMigrations();
    const { db, drop } = await schemas.fresh(migrations.slice(0, 3));
    try {
      await db.query("INSERT INTO pets (name, category_id, status) SELECT 'old ' || g, 1, CASE WHEN g % 3 = 0 THEN 'sold' ELSE 'available' END FROM generate_series(1, 30) g");
      await migrate(db, migrations);
      const pets = new PostgresPetRepository(db, new SystemClock());
      expect(await pets.countByStatus()).toEqual({ available: 20, pending: 0, sold: 10 });
      // As a previous release writes: its own statements, which know nothing of the counts.
      await db.query("UPDATE pets SET status = 'pending' WHERE id <= 5");
      await db.query("INSERT INTO pets (name, category_id, status) VALUES ('new', 1, 'pending'), ('new', 1, 'sold')");
      await db.query("UPDATE pets SET status = status WHERE id > 25");
      expect(await pets.countByStatus()).toEqual({ available: 16, pending: 6, sold: 10 });
      await Promise.all(Array.from({ length: 40 }, (_, i) => pets.create({ name: `c ${i}`, categoryId: 1, status: 'available' })));
      await Promise.all(Array.from({ length: 20 }, (_, i) => pets.updateStatus(33 + i, 'sold')));
      expect(await pets.countByStatus()).toEqual({ available: 36, pending: 6, sold: 30 });
      await db.query('DELETE FROM pets WHERE id = 1');
      expect(await pets.countByStatus()).toEqual({ available: 36, pending: 5, sold: 30 });
      await db.query('TRUNCATE pets CASCADE');
      expect(await pets.countByStatus()).toEqual({ available: 0, pending: 0, sold: 0 });
    } finally {
      await drop();
    }
  });
});

describe('PostgresIdempotencyStore in-flight marks', () => {
  it('a mark tells a repeat its time left, and holds it off no more in its last second (IDEMPOTENCY_MARK_RESOLUTION_MS)', async () => {
    const { db, drop } = await schemas.fresh();
    try {
      const clock = new ManualClock(1_767_225_600_000);
      const store = new PostgresIdempotencyStore(db, clock);
      const claim = claimOf('k1');
      expect(await store.begin(claim)).toEqual({ kind: 'started' });
      clock.advance(IDEMPOTENCY_IN_FLIGHT_MS - IDEMPOTENCY_MARK_RESOLUTION_MS);
      expect(await store.begin(claim)).toEqual({ kind: 'in_flight', leftMs: IDEMPOTENCY_MARK_RESOLUTION_MS });
      expect(await store.begin(claimOf('k1', 'another request'))).toEqual({ kind: 'reused' });
      clock.advance(1);
      expect(await store.begin(claim)).toEqual({ kind: 'started' });
      expect(await store.begin(claim)).toEqual({ kind: 'in_flight', leftMs: IDEMPOTENCY_IN_FLIGHT_MS });
    } finally {
      await drop();
    }
  });
});
