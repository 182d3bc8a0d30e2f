import type { RedisClient } from './redis-client.js';
import { ROLES, type Role } from '../../domain/access/caller.js';
import { planOfRecord, planRecord } from '../../domain/quota/plan-record.js';
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
  updatedKey,
} from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import { CREATE_API_KEY_LUA, REVOKE_API_KEY_LUA, ROLL_API_KEY_LUA, UPDATE_API_KEY_LUA } from './api-key-scripts.lua.js';
import { fromRedis } from './redis-failures.js';
import { assertValidKeyPrefix } from './redis-key-prefix.js';

interface ApiKeyScripts {
  petstoreCreateApiKey(key: string, field: string, record: string, digest: string, grant: string): Promise<number>;
  petstoreRevokeApiKey(key: string, field: string, read: string, revoked: string, ...secrets: string[]): Promise<number>;
  petstoreUpdateApiKey(key: string, field: string, read: string, updated: string, ...secretsAndGrants: string[]): Promise<number>;
  petstoreRollApiKey(
    key: string,
    field: string,
    read: string,
    rolled: string,
    newSecret: string,
    newGrant: string,
    oldSecret: string,
    oldGrant: string,
    olderSecret: string,
  ): Promise<number>;
}

const SYSTEM_TIME: Clock = { now: () => Date.now() };
const ID_FIELD = 'id:';

/**
 * Every key in one hash, `<prefix>api-keys`, so each change is a one-key command or script
 * (one Cluster slot whatever the prefix) and a lookup stays one HGET:
 *
 * - field `<digest>` (64 hex digits) of each secret: the grant, `{name, rules, role}` (the
 *   plan's fields, its overrides applied, and the role), with `expiresAt` (epoch ms) when the
 *   key expires and `holder` when the secret is a rolled key's. Records written before keys had
 *   roles lack `role` and are customers; records written by `register` have no expiry.
 * - field `id:<id>`, for keys created through KeyAdmin: `{digest, label, name, rules,
 *   overrides?, role, createdAt, expiresAt?, revokedAt?, updatedAt?, rolledAt?, secret?,
 *   previousSecret?, previousSecretUntil?}`, what `listKeys` shows: the plan as it is, and the
 *   key's overrides of its rules beside it (absent: none). `digest` is the one the key was created with;
 *   after a roll, `secret` is its current secret's digest and `previousSecret` the one before,
 *   kept until the next roll or the revocation (its grant expires with its grace).
 *
 * Revoking writes `revokedAt` and deletes the secrets' fields in one script: a revoked key has
 * no grant at all, so even an instance running an older release, which knows nothing of
 * revocation, refuses it. Updating and rolling rewrite the record and the grants in one script.
 * Expiry is checked against `clock` at each lookup.
 */
export class RedisApiKeyRegistry implements ApiKeyRegistry, KeyAdmin {
  private readonly key: string;
  private readonly redis: RedisClient & ApiKeyScripts;

  constructor(
    redis: RedisClient,
    prefix: string,
    private readonly clock: Clock = SYSTEM_TIME,
  ) {
    this.key = `${assertValidKeyPrefix(prefix)}api-keys`;
    redis.defineCommand('petstoreCreateApiKey', { numberOfKeys: 1, lua: CREATE_API_KEY_LUA });
    redis.defineCommand('petstoreRevokeApiKey', { numberOfKeys: 1, lua: REVOKE_API_KEY_LUA });
    redis.defineCommand('petstoreUpdateApiKey', { numberOfKeys: 1, lua: UPDATE_API_KEY_LUA });
    redis.defineCommand('petstoreRollApiKey', { numberOfKeys: 1, lua: ROLL_API_KEY_LUA });
    this.redis = redis as RedisClient & ApiKeyScripts;
  }

  async grantOf(keyDigest: string): Promise<ApiKeyGrant | undefined> {
    if (keyDigest.startsWith(ID_FIELD)) return undefined;
    const record = await fromRedis(this.redis, () => this.redis.hget(this.key, keyDigest));
    if (record === null) return undefined;
    const grant = grantOf(record);
    return isExpired(grant, this.clock.now()) ? undefined : grant;
  }

  async register(keyDigest: string, grant: ApiKeyGrant): Promise<void> {
    await fromRedis(this.redis, () => this.redis.hset(this.key, keyDigest, grantRecord(grant)));
  }

  async createKey(keyDigest: string, key: ManagedApiKey): Promise<void> {
    const { id, label, plan, overrides, role, createdAt, expiresAt } = key;
    const expiry = expiresAt === undefined ? {} : { expiresAt };
    const managed = JSON.stringify({ digest: keyDigest, label, ...planRecord(plan), ...overridesField(overrides), role, createdAt, ...expiry });
    const grant = grantRecord(secretGrant(key, keyDigest, keyDigest, false));
    // Ids and keys are random, but two keys under one id, or one key under two, must never be.
    const created = await fromRedis(this.redis, () =>
      this.redis.petstoreCreateApiKey(this.key, `${ID_FIELD}${id}`, managed, keyDigest, grant),
    );
    if (created !== 1) throw new Error(`An API key with id ${id}, or with its digest, exists already`);
  }

  async listKeys(): Promise<readonly StoredApiKey[]> {
    const fields = await fromRedis(this.redis, () => this.redis.hgetall(this.key));
    const keys: StoredApiKey[] = [];
    for (const [field, record] of Object.entries(fields)) {
      if (field.startsWith(ID_FIELD)) keys.push(storedKeyOf(managedKeyOf(field.slice(ID_FIELD.length), record)));
    }
    return keys.sort(({ key: a }, { key: b }) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async findKey(id: string): Promise<StoredApiKey | undefined> {
    const record = await fromRedis(this.redis, () => this.redis.hget(this.key, `${ID_FIELD}${id}`));
    return record === null ? undefined : storedKeyOf(managedKeyOf(id, record));
  }

  async revokeKey(id: string, at: number): Promise<RevokeOutcome> {
    const field = `${ID_FIELD}${id}`;
    // Compare and set: a record changed between the read and the script (a concurrent revoke) is read again.
    for (;;) {
      const read = await fromRedis(this.redis, () => this.redis.hget(this.key, field));
      if (read === null) return 'not_found';
      const managed = managedKeyOf(id, read);
      const { key } = managed;
      if (key.revokedAt !== undefined) return 'already_revoked';
      const { previousSecretUntil } = key;
      const graceEnd = previousSecretUntil === undefined ? {} : { previousSecretUntil: Math.min(previousSecretUntil, at) };
      const revoked = JSON.stringify({ ...(JSON.parse(read) as object), revokedAt: at, ...graceEnd });
      const done = await fromRedis(this.redis, () =>
        this.redis.petstoreRevokeApiKey(this.key, field, read, revoked, ...secretsOf(managed).map(([secret]) => secret)),
      );
      if (done === 1) return 'revoked';
    }
  }

  async updateKey(id: string, changes: KeyChanges, at: number): Promise<UpdateOutcome> {
    const field = `${ID_FIELD}${id}`;
    // Compare and set, as revokeKey: a revocation or another update meanwhile is read again.
    for (;;) {
      const read = await fromRedis(this.redis, () => this.redis.hget(this.key, field));
      if (read === null) return 'not_found';
      const managed = managedKeyOf(id, read);
      const { key, digest } = managed;
      if (key.revokedAt !== undefined) return 'revoked';
      const updated: ManagedApiKey = Object.freeze(updatedKey(key, changes, at));
      const { label, plan, overrides, role, expiresAt } = updated;
      // Over the record read, as revokeKey: fields this class does not know of are kept.
      const { overrides: _before, ...fields } = JSON.parse(read) as Record<string, unknown>;
      const record = JSON.stringify({
        ...fields,
        label,
        ...planRecord(plan),
        ...overridesField(overrides),
        role,
        ...(expiresAt === undefined ? {} : { expiresAt }),
        updatedAt: at,
      });
      const grants = secretsOf(managed).flatMap(([secret, previous]) => [secret, grantRecord(secretGrant(updated, digest, secret, previous))]);
      const done = await fromRedis(this.redis, () => this.redis.petstoreUpdateApiKey(this.key, field, read, record, ...grants));
      if (done === 1) return { updated };
    }
  }

  async rollKey(id: string, newDigest: string, graceEndsAt: number, at: number): Promise<RollOutcome> {
    const field = `${ID_FIELD}${id}`;
    // Compare and set, as revokeKey: a revocation, an update or another roll meanwhile is read again.
    for (;;) {
      const read = await fromRedis(this.redis, () => this.redis.hget(this.key, field));
      if (read === null) return 'not_found';
      const { key, digest, secret, previousSecret } = managedKeyOf(id, read);
      if (key.revokedAt !== undefined) return 'revoked';
      const graced = graceEndsAt > at;
      const grace = graced ? { previousSecretUntil: graceEndsAt } : {};
      const { previousSecretUntil: _ended, ...kept } = key;
      const rolled: ManagedApiKey = Object.freeze({ ...kept, rolledAt: at, ...grace });
      const { previousSecret: _older, previousSecretUntil: _olderGrace, ...fields } = JSON.parse(read) as Record<string, unknown>;
      const record = JSON.stringify({ ...fields, secret: newDigest, rolledAt: at, ...(graced ? { previousSecret: secret } : {}), ...grace });
      const newGrant = grantRecord(secretGrant(rolled, digest, newDigest, false));
      const oldGrant = graced ? grantRecord(secretGrant(rolled, digest, secret, true)) : '';
      const done = await fromRedis(this.redis, () => this.redis.petstoreRollApiKey(this.key, field, read, record, newDigest, newGrant, secret, oldGrant, previousSecret ?? ''));
      if (done === -1) throw new Error(`API key ${id} cannot be rolled to a digest in use`);
      if (done === 1) return { rolled };
    }
  }
}

const overridesField = (overrides: RuleOverrides | undefined): { overrides?: object } =>
  overrides === undefined ? {} : { overrides: overridesRecord(overrides) };

const grantRecord = ({ plan, role, expiresAt, holder }: ApiKeyGrant): string =>
  JSON.stringify({ ...planRecord(plan), role, ...(expiresAt === undefined ? {} : { expiresAt }), ...(holder === undefined ? {} : { holder }) });

const isRole = (value: unknown): value is Role => ROLES.some((role) => role === value);

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);

const malformed = (): Error => new Error('Malformed API key record in Redis');

/** Records are written only by this class; a malformed one means the keyspace was tampered with. */
const grantOf = (record: string): ApiKeyGrant => {
  const fields: unknown = JSON.parse(record);
  const plan = planOfRecord(fields);
  if (plan !== undefined && typeof fields === 'object' && fields !== null) {
    const role = 'role' in fields ? fields.role : 'customer';
    const expiresAt = 'expiresAt' in fields ? fields.expiresAt : undefined;
    const holder = 'holder' in fields ? fields.holder : undefined;
    if (isRole(role) && (expiresAt === undefined || isTime(expiresAt)) && (holder === undefined || typeof holder === 'string')) {
      return Object.freeze({ plan, role, ...(expiresAt === undefined ? {} : { expiresAt }), ...(holder === undefined ? {} : { holder }) });
    }
  }
  throw malformed();
};

/** A managed key's record: the key, the digest it was created with, and the digests of its secrets. */
interface ManagedRecord extends StoredApiKey {
  readonly secret: string;
  /** The secret before the last roll, whose grant expires with its grace. */
  readonly previousSecret: string | undefined;
}

/** The digest of each secret of a key that has a grant field, and whether it is the previous one. */
const secretsOf = ({ secret, previousSecret }: ManagedRecord): readonly (readonly [string, boolean])[] =>
  previousSecret === undefined ? [[secret, false]] : [[secret, false], [previousSecret, true]];

const storedKeyOf = ({ key, digest }: ManagedRecord): StoredApiKey => ({ key, digest });

const managedKeyOf = (id: string, record: string): ManagedRecord => {
  const { plan, role } = grantOf(record);
  const fields = JSON.parse(record) as Record<string, unknown>;
  const { digest, label, createdAt, expiresAt, revokedAt, updatedAt, rolledAt, secret, previousSecret, previousSecretUntil } = fields;
  const overrides = overridesOfRecord(fields['overrides']);
  if (
    overrides === false ||
    typeof digest !== 'string' ||
    typeof label !== 'string' ||
    !isTime(createdAt) ||
    !(expiresAt === undefined || isTime(expiresAt)) ||
    !(revokedAt === undefined || isTime(revokedAt)) ||
    !(updatedAt === undefined || isTime(updatedAt)) ||
    !(rolledAt === undefined || isTime(rolledAt)) ||
    !(previousSecretUntil === undefined || isTime(previousSecretUntil)) ||
    !(secret === undefined || typeof secret === 'string') ||
    !(previousSecret === undefined || typeof previousSecret === 'string')
  ) {
    throw malformed();
  }
  const key: ManagedApiKey = Object.freeze({
    id,
    label,
    plan,
    ...(overrides === undefined ? {} : { overrides }),
    role,
    createdAt,
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(revokedAt === undefined ? {} : { revokedAt }),
    ...(updatedAt === undefined ? {} : { updatedAt }),
    ...(rolledAt === undefined ? {} : { rolledAt }),
    ...(previousSecretUntil === undefined ? {} : { previousSecretUntil }),
  });
  return { key, digest, secret: secret ?? digest, previousSecret };
};
