import { ROLES, type Role } from '../../domain/access/caller.js';
import { planOfRecord, planRecord } from '../../domain/quota/plan-record.js';
import type { Plan } from '../../domain/quota/plan.js';
import { overridesOfRecord, overridesRecord, type RuleOverrides } from '../../domain/quota/rule-overrides.js';
import {
  isExpired,
  type ApiKeyGrant,
  type ApiKeyRegistry,
  type KeyAdmin,
  type KeyChanges,
  type ManagedApiKey,
  type RevokeOutcome,
  type RollOutcome,
  secretGrant,
  type StoredApiKey,
  type UpdateOutcome,
} from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { PostgresDatabase } from './postgres-database.js';

interface KeyRow {
  readonly digest: string;
  readonly id: string | null;
  readonly label: string;
  readonly plan: unknown;
  readonly overrides: unknown;
  readonly role: string;
  readonly created_at: string | null;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
  readonly updated_at: string | null;
  readonly rolled_at: string | null;
  readonly previous_until: string | null;
}

const isRole = (value: unknown): value is Role => ROLES.some((role) => role === value);

const malformed = (): Error => new Error('Malformed API key row in PostgreSQL');

/** Rows are written only by this class; a malformed one means the table was edited by hand. Rows made before 0005 have no overrides. */
const planAndRole = (row: KeyRow): { plan: Plan; overrides?: RuleOverrides; role: Role } => {
  const plan = planOfRecord(row.plan);
  const overrides = overridesOfRecord(row.overrides);
  if (plan === undefined || overrides === false || !isRole(row.role)) throw malformed();
  return { plan, ...(overrides === undefined ? {} : { overrides }), role: row.role };
};

const KEY_COLUMNS = 'digest, id, label, plan, overrides, role, created_at, expires_at, revoked_at, updated_at, rolled_at, previous_until';

const timeOf = (column: string | null): number | undefined => (column === null ? undefined : Number(column));

const storedKeyOf = (row: KeyRow): StoredApiKey => {
  if (row.id === null || row.created_at === null) throw malformed();
  const [expiresAt, revokedAt, updatedAt] = [timeOf(row.expires_at), timeOf(row.revoked_at), timeOf(row.updated_at)];
  const [rolledAt, previousSecretUntil] = [timeOf(row.rolled_at), timeOf(row.previous_until)];
  const key = {
    id: row.id,
    label: row.label,
    ...planAndRole(row),
    createdAt: Number(row.created_at),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(revokedAt === undefined ? {} : { revokedAt }),
    ...(updatedAt === undefined ? {} : { updatedAt }),
    ...(rolledAt === undefined ? {} : { rolledAt }),
    ...(previousSecretUntil === undefined ? {} : { previousSecretUntil }),
  };
  return { key, digest: row.digest };
};

/**
 * API keys in PostgreSQL, by SHA-256 digest; keys made by `petstore keys` also by id. A row is a
 * key: `digest` the one it was created with, and after a roll its secrets' digests
 * (`0003_key_rolls.sql`), whose grants are worked out from the row at each lookup, so an update
 * or a revocation of the row applies to every secret at once.
 */
export class PostgresApiKeyRegistry implements ApiKeyRegistry, KeyAdmin {
  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async grantOf(keyDigest: string): Promise<ApiKeyGrant | undefined> {
    // Each branch an index lookup: a key never rolled, a rolled key's secret, its previous one.
    const { rows } = await this.db.read<KeyRow & { previous: boolean }>(
      `SELECT ${KEY_COLUMNS}, previous_digest IS NOT DISTINCT FROM $1 AS previous FROM api_keys
       WHERE (digest = $1 AND secret_digest IS NULL) OR secret_digest = $1 OR previous_digest = $1`,
      [keyDigest],
    );
    const row = rows[0];
    if (row === undefined || row.revoked_at !== null) return undefined;
    const [expiresAt, previousSecretUntil] = [timeOf(row.expires_at), timeOf(row.previous_until)];
    const key = {
      ...planAndRole(row),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(previousSecretUntil === undefined ? {} : { previousSecretUntil }),
    };
    const grant = secretGrant(key, row.digest, keyDigest, row.previous);
    return isExpired(grant, this.clock.now()) ? undefined : grant;
  }

  async register(keyDigest: string, { plan, role, expiresAt }: ApiKeyGrant): Promise<void> {
    await this.db.query(
      `INSERT INTO api_keys (digest, plan, role, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (digest) DO UPDATE SET plan = EXCLUDED.plan, role = EXCLUDED.role, expires_at = EXCLUDED.expires_at`,
      [keyDigest, planRecord(plan), role, expiresAt ?? null],
    );
  }

  async createKey(keyDigest: string, { id, label, plan, overrides, role, createdAt, expiresAt }: ManagedApiKey): Promise<void> {
    // The primary key and the unique id refuse a second key under either: never two keys under one id, or one under two.
    await this.db.query('INSERT INTO api_keys (digest, id, label, plan, overrides, role, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      keyDigest,
      id,
      label,
      planRecord(plan),
      overrides === undefined ? null : overridesRecord(overrides),
      role,
      createdAt,
      expiresAt ?? null,
    ]);
  }

  async listKeys(): Promise<readonly StoredApiKey[]> {
    const { rows } = await this.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id IS NOT NULL ORDER BY created_at, id`);
    return rows.map(storedKeyOf);
  }

  async findKey(id: string): Promise<StoredApiKey | undefined> {
    const { rows } = await this.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    const row = rows[0];
    return row === undefined ? undefined : storedKeyOf(row);
  }

  async revokeKey(id: string, at: number): Promise<RevokeOutcome> {
    // The row lock makes one of concurrent revocations the one that revokes.
    const { rows } = await this.db.query<{ revoked: boolean; known: boolean }>(
      `WITH revoked AS (
         UPDATE api_keys SET revoked_at = $2, previous_until = CASE WHEN previous_until > $2 THEN $2 ELSE previous_until END
         WHERE id = $1 AND revoked_at IS NULL RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM revoked) AS revoked, EXISTS (SELECT 1 FROM api_keys WHERE id = $1) AS known`,
      [id, at],
    );
    const outcome = rows[0];
    if (outcome?.revoked === true) return 'revoked';
    return outcome?.known === true ? 'already_revoked' : 'not_found';
  }

  async updateKey(id: string, { plan, overrides, role, label, expiresAt }: KeyChanges, at: number): Promise<UpdateOutcome> {
    // One statement under the row lock: a concurrent revocation either comes first (nothing updated) or after.
    // Overrides removed are stored as NULL, as a key that never had any.
    const { rows } = await this.db.query<KeyRow & { updated: boolean }>(
      `WITH updated AS (
         UPDATE api_keys SET plan = COALESCE($2, plan), role = COALESCE($3, role), label = COALESCE($4, label),
                             expires_at = COALESCE($5, expires_at), updated_at = $6,
                             overrides = CASE WHEN $7::jsonb IS NULL THEN overrides ELSE NULLIF($7::jsonb, '{}'::jsonb) END
         WHERE id = $1 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS})
       SELECT true AS updated, * FROM updated
       UNION ALL SELECT false, ${KEY_COLUMNS} FROM api_keys WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM updated)`,
      [
        id,
        plan === undefined ? null : planRecord(plan),
        role ?? null,
        label ?? null,
        expiresAt ?? null,
        at,
        overrides === undefined ? null : overridesRecord(overrides),
      ],
    );
    const row = rows[0];
    if (row === undefined) return 'not_found';
    return row.updated ? { updated: storedKeyOf(row).key } : 'revoked';
  }

  async rollKey(id: string, newDigest: string, graceEndsAt: number, at: number): Promise<RollOutcome> {
    // One statement under the row lock, as updateKey: concurrent rolls each find the secret the
    // other left. A digest that is any row's secret is refused; the unique indexes refuse one
    // taken by a statement running meanwhile.
    const { rows } = await this.db.query<KeyRow & { rolled: boolean }>(
      `WITH rolled AS (
         UPDATE api_keys SET secret_digest = $2, previous_digest = CASE WHEN $3::bigint IS NULL THEN NULL ELSE COALESCE(secret_digest, digest) END,
                             previous_until = $3, rolled_at = $4
         WHERE id = $1 AND revoked_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM api_keys WHERE digest = $2 OR secret_digest = $2 OR previous_digest = $2)
         RETURNING ${KEY_COLUMNS})
       SELECT true AS rolled, * FROM rolled
       UNION ALL SELECT false, ${KEY_COLUMNS} FROM api_keys WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM rolled)`,
      [id, newDigest, graceEndsAt > at ? graceEndsAt : null, at],
    );
    const row = rows[0];
    if (row === undefined) return 'not_found';
    if (row.rolled) return { rolled: storedKeyOf(row).key };
    if (row.revoked_at !== null) return 'revoked';
    // The row as the statement's snapshot saw it: a revocation that held the row lock and
    // committed meanwhile stopped the update, but is not in that row. Read it again to tell.
    const now = await this.db.query<{ revoked: boolean }>('SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1', [id]);
    if (now.rows[0]?.revoked === true) return 'revoked';
    throw new Error(`API key ${id} cannot be rolled to a digest in use`);
  }
}
