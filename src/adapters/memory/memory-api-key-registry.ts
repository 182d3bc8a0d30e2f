import type { Plan } from '../../domain/quota/plan.js';
import type { RuleOverrides } from '../../domain/quota/rule-overrides.js';
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

const frozenPlan = ({ name, rules, concurrency, credits }: Plan): Plan =>
  Object.freeze({
    name,
    rules: Object.freeze(rules.map((rule) => Object.freeze({ ...rule }))),
    ...(concurrency === undefined ? {} : { concurrency: Object.freeze({ ...concurrency }) }),
    // Kept as the cap is: a copy that drops them would give the key a plan without its credits.
    ...(credits === undefined ? {} : { credits: Object.freeze({ ...credits }) }),
  });

/** Keeps a frozen copy of each grant, so neither the registering code nor a reader can alter another's view. */
const frozenCopy = ({ plan, role, expiresAt, holder }: ApiKeyGrant): ApiKeyGrant =>
  Object.freeze({ plan: frozenPlan(plan), role, ...(expiresAt === undefined ? {} : { expiresAt }), ...(holder === undefined ? {} : { holder }) });

const frozenOverrides = (overrides: RuleOverrides): RuleOverrides =>
  Object.freeze(Object.fromEntries(Object.entries(overrides).map(([rule, override]) => [rule, Object.freeze({ ...override })])));

const frozenKey = (key: ManagedApiKey): ManagedApiKey =>
  Object.freeze({ ...key, plan: frozenPlan(key.plan), ...(key.overrides === undefined ? {} : { overrides: frozenOverrides(key.overrides) }) });

interface ManagedEntry {
  /** The digest the key was created with, which its quota and orders are known by. */
  readonly digest: string;
  key: ManagedApiKey;
  /** The digest of its secret, and of the one before the last roll (graced by `key.previousSecretUntil`). */
  secret: string;
  previous: string | undefined;
}

const SYSTEM_TIME: Clock = { now: () => Date.now() };

export class MemoryApiKeyRegistry implements ApiKeyRegistry, KeyAdmin {
  private readonly grants = new Map<string, ApiKeyGrant>();
  /** Managed keys by id, with their digests. */
  private readonly managed = new Map<string, ManagedEntry>();

  /** `clock` decides expiry; keys without an expiry (all configured keys) never consult it. */
  constructor(private readonly clock: Clock = SYSTEM_TIME) {}

  // Synchronous and returning the stored object: the lookup is on every request's path, and a
  // promise there costs a microtask.
  grantOf(keyDigest: string): ApiKeyGrant | undefined {
    const grant = this.grants.get(keyDigest);
    return grant === undefined || grant.expiresAt === undefined || !isExpired(grant, this.clock.now()) ? grant : undefined;
  }

  async register(keyDigest: string, grant: ApiKeyGrant): Promise<void> {
    this.grants.set(keyDigest, frozenCopy(grant));
  }

  async createKey(keyDigest: string, key: ManagedApiKey): Promise<void> {
    if (this.managed.has(key.id) || this.grants.has(keyDigest)) throw new Error(`API key ${key.id} or its digest exists already`);
    const entry: ManagedEntry = { digest: keyDigest, key: frozenKey(key), secret: keyDigest, previous: undefined };
    this.managed.set(key.id, entry);
    this.grantSecrets(entry);
  }

  async listKeys(): Promise<readonly StoredApiKey[]> {
    return [...this.managed.values()]
      .map(({ key, digest }) => ({ key, digest }))
      .sort(({ key: a }, { key: b }) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async findKey(id: string): Promise<StoredApiKey | undefined> {
    const entry = this.managed.get(id);
    return entry === undefined ? undefined : { key: entry.key, digest: entry.digest };
  }

  async revokeKey(id: string, at: number): Promise<RevokeOutcome> {
    const entry = this.managed.get(id);
    if (entry === undefined) return 'not_found';
    if (entry.key.revokedAt !== undefined) return 'already_revoked';
    const { previousSecretUntil } = entry.key;
    entry.key = frozenKey({
      ...entry.key,
      revokedAt: at,
      ...(previousSecretUntil === undefined ? {} : { previousSecretUntil: Math.min(previousSecretUntil, at) }),
    });
    this.grants.delete(entry.secret);
    if (entry.previous !== undefined) this.grants.delete(entry.previous);
    return 'revoked';
  }

  async updateKey(id: string, changes: KeyChanges, at: number): Promise<UpdateOutcome> {
    const entry = this.managed.get(id);
    if (entry === undefined) return 'not_found';
    if (entry.key.revokedAt !== undefined) return 'revoked';
    entry.key = frozenKey(updatedKey(entry.key, changes, at));
    this.grantSecrets(entry);
    return { updated: entry.key };
  }

  async rollKey(id: string, newDigest: string, graceEndsAt: number, at: number): Promise<RollOutcome> {
    const entry = this.managed.get(id);
    if (entry === undefined) return 'not_found';
    if (entry.key.revokedAt !== undefined) return 'revoked';
    if (this.grants.has(newDigest)) throw new Error(`API key ${id} cannot be rolled to a digest in use`);
    if (entry.previous !== undefined) this.grants.delete(entry.previous);
    const graced = graceEndsAt > at;
    if (!graced) this.grants.delete(entry.secret);
    const { previousSecretUntil: _ended, ...key } = entry.key;
    entry.key = frozenKey({ ...key, rolledAt: at, ...(graced ? { previousSecretUntil: graceEndsAt } : {}) });
    entry.previous = graced ? entry.secret : undefined;
    entry.secret = newDigest;
    this.grantSecrets(entry);
    return { rolled: entry.key };
  }

  private grantSecrets({ digest, key, secret, previous }: ManagedEntry): void {
    this.grants.set(secret, frozenCopy(secretGrant(key, digest, secret, false)));
    if (previous !== undefined) this.grants.set(previous, frozenCopy(secretGrant(key, digest, previous, true)));
  }
}
