import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirInUseError } from '../../src/adapters/pglite/data-dir-lock.js';
import { openPgliteDatabase } from '../../src/adapters/pglite/pglite-database.js';
import { StoreUnavailableError, SystemClock } from '../../src/index.js';
import { PostgresApiKeyRegistry, PostgresCreditLedger } from '../../src/postgres.js';
import { describeApiKeyRegistryContract, describeKeyAdminContract } from '../contracts/api-key-registry-contract.js';
import { describeCreditLedgerContract } from '../contracts/credit-ledger-contract.js';
import { describeIdempotencyStoreContract } from '../contracts/idempotency-store-contract.js';
import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import { runs } from '../support/property-runs.js';
import { pgliteStores, usePglite } from './pglite-stores-fixture.js';

// The PostgreSQL store's classes on PGlite: every contract, all on the file's one PGlite (emptied between fixtures).
const fixtures = usePglite();

describe('PGlite: pets', () => {
  describePetRepositoryContract('PGlite', pgliteStores(fixtures), { numRuns: runs(30) });
});

describe('PGlite: orders', () => {
  describeOrderRepositoryContract('PGlite', pgliteStores(fixtures), { numRuns: runs(30) });
});

describe('PGlite: idempotency records', () => {
  describeIdempotencyStoreContract('PGlite', pgliteStores(fixtures));
});

describe('PGlite: keys', () => {
  describeApiKeyRegistryContract(
    'PGlite',
    async () => {
      const { db, drop } = await fixtures.fresh();
      return { registry: new PostgresApiKeyRegistry(db, new SystemClock()), cleanup: drop };
    },
    { numRuns: runs(20) },
  );
  describeKeyAdminContract('PGlite', async (clock) => {
    const { db, drop } = await fixtures.fresh();
    return { registry: new PostgresApiKeyRegistry(db, clock), cleanup: drop };
  });
});

describe('PGlite: credits', () => {
  describeCreditLedgerContract('PGlite', async () => {
    const { db, drop } = await fixtures.fresh();
    return { ledger: new PostgresCreditLedger(db), cleanup: drop };
  });
});

describe('PgliteDatabase', () => {
  it('takes calls in turns: a call whose deadline passes behind a transaction is refused unrun, one already under way finishes', async () => {
    const { db, drop } = await fixtures.fresh();
    try {
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const transaction = db.transaction(async (session) => {
        await session.query("INSERT INTO pets (name, category_id, status) VALUES ('held', 1, 'available')");
        await held;
      });
      // Queued behind the transaction, with a deadline that passes before it ends.
      const late = db.query("INSERT INTO pets (name, category_id, status) VALUES ('late', 1, 'available')", [], { deadline: { at: performance.now() + 50 } });
      const patient = db.query("INSERT INTO pets (name, category_id, status) VALUES ('patient', 1, 'available')");
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      await transaction;
      await expect(late).rejects.toBeInstanceOf(StoreUnavailableError);
      await patient;
      const { rows } = await db.read<{ name: string }>('SELECT name FROM pets ORDER BY id');
      expect(rows.map((row) => row.name)).toEqual(['held', 'patient']);
    } finally {
      await drop();
    }
  });

  it('rolls back a transaction whose next statement comes after its deadline, with StoreUnavailableError', async () => {
    const { db, drop } = await fixtures.fresh();
    try {
      const deadline = { at: performance.now() + 50 };
      const work = db.transaction(
        async (session) => {
          await session.query("INSERT INTO pets (name, category_id, status) VALUES ('first', 1, 'available')");
          await new Promise((resolve) => setTimeout(resolve, 100));
          await session.query("INSERT INTO pets (name, category_id, status) VALUES ('second', 1, 'available')");
        },
        { deadline },
      );
      await expect(work).rejects.toBeInstanceOf(StoreUnavailableError);
      expect((await db.read('SELECT 1 FROM pets')).rowCount).toBe(0);
    } finally {
      await drop();
    }
  });
});

describe('a PGlite data directory', () => {
  it('is created if missing, refused to a second opener while open, and taken over from a process that died holding it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-pglite-lock-'));
    const dataDir = join(dir, 'nested', 'data');
    try {
      const first = await openPgliteDatabase({ dataDir });
      try {
        expect(readFileSync(join(dataDir, 'petstore.lock'), 'utf8')).toBe(String(process.pid));
        await expect(openPgliteDatabase({ dataDir })).rejects.toThrow(new DataDirInUseError(dataDir, process.pid).message);
        await first.query('CREATE TABLE kept (n integer)');
        await first.query('INSERT INTO kept VALUES (1)');
      } finally {
        await first.end();
      }
      expect(existsSync(join(dataDir, 'petstore.lock'))).toBe(false);
      // A lock naming a process that is gone: a pid above any the kernel hands out.
      writeFileSync(join(dataDir, 'petstore.lock'), '2147483647');
      const second = await openPgliteDatabase({ dataDir });
      try {
        expect((await second.read<{ n: number }>('SELECT n FROM kept')).rows).toEqual([{ n: 1 }]);
      } finally {
        await second.end();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
