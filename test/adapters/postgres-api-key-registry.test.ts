import { createHash } from 'node:crypto';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/adapters/postgres/migrate.js';
import { readMigrations } from '../../src/adapters/postgres/migration-files.js';
import { PostgresApiKeyRegistry } from '../../src/adapters/postgres/postgres-api-key-registry.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { planRecord } from '../../src/domain/quota/plan-record.js';
import { describeApiKeyRegistryContract, describeKeyAdminContract } from '../contracts/api-key-registry-contract.js';
import { ManualClock } from '../support/manual-clock.js';
import { usePostgresSchemas } from './postgres-stores-fixture.js';
import { runs } from '../support/property-runs.js';

const schemas = usePostgresSchemas();

describeApiKeyRegistryContract(
  'PostgresApiKeyRegistry',
  async () => {
    const { db, drop } = await schemas.fresh();
    return { registry: new PostgresApiKeyRegistry(db, new SystemClock()), cleanup: drop };
  },
  // A run takes an emptied migrated schema (usePostgresSchemas): the 20 runs take some 2 s.
  { numRuns: runs(20) },
);

describeKeyAdminContract('PostgresApiKeyRegistry', async (clock) => {
  const { db, drop } = await schemas.fresh();
  return { registry: new PostgresApiKeyRegistry(db, clock), cleanup: drop };
});

describe('PostgresApiKeyRegistry on a database migrated from before 0003_key_rolls', () => {
  it('rolls a key created before the migration: both secrets answer as the key, its usage is still read by its first digest', async () => {
    const T0 = Date.UTC(2026, 10, 26);
    const digestOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');
    const [old, rolled] = [digestOf('old secret'), digestOf('new secret')];
    const migrations = readMigrations();
    const { db, drop } = await schemas.fresh(migrations.filter(({ version }) => version < 3));
    try {
      // The row as the release before 0003 wrote it.
      await db.query('INSERT INTO api_keys (digest, id, label, plan, role, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        old,
        'key_before',
        'made before',
        planRecord(STANDARD_PLANS.business),
        'staff',
        T0 - 1_000,
        T0 - 500,
      ]);
      expect(await migrate(db, migrations)).toMatchObject({ from: 2, pending: [{ version: 3, name: 'key_rolls' }, ...migrations.slice(3)] });
      const registry = new PostgresApiKeyRegistry(db, new ManualClock(T0));
      const key = { id: 'key_before', label: 'made before', plan: STANDARD_PLANS.business, role: 'staff', createdAt: T0 - 1_000, updatedAt: T0 - 500 } as const;
      expect(await registry.findKey('key_before')).toEqual({ key, digest: old });
      expect(await registry.rollKey('key_before', rolled, T0 + 60_000, T0)).toEqual({ rolled: { ...key, rolledAt: T0, previousSecretUntil: T0 + 60_000 } });
      expect(await registry.grantOf(rolled)).toEqual({ plan: STANDARD_PLANS.business, role: 'staff', holder: old });
      expect(await registry.grantOf(old)).toEqual({ plan: STANDARD_PLANS.business, role: 'staff', expiresAt: T0 + 60_000 });
      expect((await registry.findKey('key_before'))?.digest).toBe(old);
    } finally {
      await drop();
    }
  });
});

describe('PostgresApiKeyRegistry on a database migrated from before 0005_key_overrides', () => {
  it('reads a key made before the migration as one without overrides, gives it some, and keeps them through an update of the release before', async () => {
    const T0 = Date.UTC(2026, 10, 27);
    const digest = createHash('sha256').update('made before').digest('hex');
    const migrations = readMigrations();
    const { db, drop } = await schemas.fresh(migrations.filter(({ version }) => version < 5));
    try {
      // The row as the release before 0005 wrote it.
      await db.query('INSERT INTO api_keys (digest, id, label, plan, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        digest,
        'key_before',
        'made before',
        planRecord(STANDARD_PLANS.pro),
        'customer',
        T0 - 1_000,
      ]);
      expect(await migrate(db, migrations)).toMatchObject({ from: 4, pending: [{ version: 5, name: 'key_overrides' }, ...migrations.slice(5)] });
      const registry = new PostgresApiKeyRegistry(db, new ManualClock(T0));
      const key = { id: 'key_before', label: 'made before', plan: STANDARD_PLANS.pro, role: 'customer', createdAt: T0 - 1_000 } as const;
      expect(await registry.findKey('key_before')).toEqual({ key, digest });
      expect(await registry.grantOf(digest)).toEqual({ plan: STANDARD_PLANS.pro, role: 'customer' });

      const overrides = { minute: { limit: 900 } };
      expect(await registry.updateKey('key_before', { overrides }, T0)).toEqual({ updated: { ...key, overrides, updatedAt: T0 } });
      // The release before's update, which knows nothing of the column, during a rollout.
      await db.query('UPDATE api_keys SET label = $2, updated_at = $3 WHERE id = $1 AND revoked_at IS NULL', ['key_before', 'renamed', T0 + 1]);
      expect((await registry.grantOf(digest))?.plan.rules[0]?.limit).toBe(900);
      expect(await registry.findKey('key_before')).toEqual({ key: { ...key, label: 'renamed', overrides, updatedAt: T0 + 1 }, digest });
    } finally {
      await drop();
    }
  });
});

describe('PostgresApiKeyRegistry rolling a key while a revocation holds its row', () => {
  it('answers revoked once the revocation commits, not a digest in use', async () => {
    const T0 = Date.UTC(2026, 10, 26);
    const digestOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');
    const { db, schema, drop } = await schemas.fresh();
    const other = postgres(schemas.url, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
    try {
      const registry = new PostgresApiKeyRegistry(db, new ManualClock(T0));
      await registry.createKey(digestOf('old'), { id: 'key_a', label: '', plan: STANDARD_PLANS.free, role: 'customer', createdAt: T0 });
      // The contract's race, made certain: the roll's statement starts, then waits on the row
      // lock of a revocation that commits after it.
      const { rolled } = await other.begin(async (tx) => {
        await tx.unsafe('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [T0 + 1, 'key_a']);
        const roll = registry.rollKey('key_a', digestOf('new'), T0 + 60_000, T0 + 1).then(
          (outcome) => ({ outcome }),
          (error: unknown) => ({ error }),
        );
        for (let waited = 0; ; waited += 10) {
          // Asked outside the transaction, which would see one snapshot of the activity throughout.
          const { rows } = await db.read<{ waiting: number }>(
            "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          if ((rows[0]?.waiting ?? 0) > 0) break;
          if (waited > 10_000) throw new Error('the roll never waited on the revocation');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        // Not the promise itself: the transaction would wait for it to commit, and it for the commit.
        return { rolled: roll };
      });
      expect(await rolled).toEqual({ outcome: 'revoked' });
      expect(await registry.grantOf(digestOf('new'))).toBeUndefined();
      expect(await registry.grantOf(digestOf('old'))).toBeUndefined();
    } finally {
      await other.end();
      await drop();
    }
  });
});
