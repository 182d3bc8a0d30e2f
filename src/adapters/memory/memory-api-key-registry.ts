import type { Plan } from '../../domain/quota/plan.js';
import {
  isExpired,
  type ApiKeyGrant,
  type ApiKeyRegistry,
  type KeyAdmin,
  type KeyChanges,
  type ManagedApiKey,
  type RevokeOutcome,
  type StoredApiKey,
  type UpdateOutcome,
} from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';

const frozenPlan = (plan: Plan): Plan =>
  Object.freeze({ name: plan.name, rules: Object.freeze(plan.rules.map((rule) => Object.freeze({ ...rule }))) });

/** Keeps a frozen copy of each grant, so neither the registering code nor a reader can alter another's view. */
const frozenCopy = ({ plan, role, expiresAt }: ApiKeyGrant): ApiKeyGrant =>
  Object.freeze({ plan: frozenPlan(plan), role, ...(expiresAt === undefined ? {} : { expiresAt }) });

const frozenKey = (key: ManagedApiKey): ManagedApiKey => Object.freeze({ ...key, plan: frozenPlan(key.plan) });

const grantOfKey = ({ plan, role, expiresAt }: ManagedApiKey): ApiKeyGrant => frozenCopy({ plan, role, ...(expiresAt === undefined ? {} : { expiresAt }) });

const SYSTEM_TIME: Clock = { now: () => Date.now() };

export class MemoryApiKeyRegistry implements ApiKeyRegistry, KeyAdmin {
  private readonly grants = new Map<string, ApiKeyGrant>();
  /** Managed keys by id, with their digest. */
  private readonly managed = new Map<string, { readonly digest: string; key: ManagedApiKey }>();

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
    this.grants.set(keyDigest, grantOfKey(key));
    this.managed.set(key.id, { digest: keyDigest, key: frozenKey(key) });
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
    entry.key = frozenKey({ ...entry.key, revokedAt: at });
    this.grants.delete(entry.digest);
    return 'revoked';
  }

  async updateKey(id: string, changes: KeyChanges, at: number): Promise<UpdateOutcome> {
    const entry = this.managed.get(id);
    if (entry === undefined) return 'not_found';
    if (entry.key.revokedAt !== undefined) return 'revoked';
    entry.key = frozenKey({ ...entry.key, ...changes, updatedAt: at });
    this.grants.set(entry.digest, grantOfKey(entry.key));
    return { updated: entry.key };
  }
}
