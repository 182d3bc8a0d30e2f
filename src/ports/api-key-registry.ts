import type { Role } from '../domain/access/caller.js';
import type { Plan } from '../domain/quota/plan.js';

/** What a key entitles its holder to: the quota of a plan and a role. */
export interface ApiKeyGrant {
  readonly plan: Plan;
  readonly role: Role;
  /**
   * Epoch milliseconds from which the key is refused; absent: never. Whoever holds a grant
   * (a cache too) checks it against its clock at each lookup, so an expired key is refused at
   * once, however long its grant was cached.
   */
  readonly expiresAt?: number;
}

/**
 * API keys are known only by their SHA-256 digest (lowercase hex): no raw key is ever stored.
 * In-memory registries may answer synchronously: the lookup is on every request's path.
 * A registry answers no grant for an expired key.
 */
export interface ApiKeyRegistry {
  grantOf(keyDigest: string): ApiKeyGrant | undefined | Promise<ApiKeyGrant | undefined>;
  register(keyDigest: string, grant: ApiKeyGrant): Promise<void>;
}

/** A key created by an operator (`petstore keys create`): everything about it but the key itself. */
export interface ManagedApiKey {
  /** Public, to list and revoke the key by: never the key nor its digest. */
  readonly id: string;
  readonly label: string;
  readonly plan: Plan;
  readonly role: Role;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly expiresAt?: number;
  readonly revokedAt?: number;
  /** The last `updateKey`; absent: never updated. */
  readonly updatedAt?: number;
}

/** A managed key and the digest its requests are known by: to read its quota, never to show. */
export interface StoredApiKey {
  readonly key: ManagedApiKey;
  readonly digest: string;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found';

/** What `updateKey` changes; an absent field keeps its value. */
export interface KeyChanges {
  readonly plan?: Plan;
  readonly role?: Role;
  readonly label?: string;
  /** Epoch milliseconds. */
  readonly expiresAt?: number;
}

/** The key as updated; or why nothing changed: no such id, or the key is revoked (a revoked key stays revoked, as it was). */
export type UpdateOutcome = { readonly updated: ManagedApiKey } | 'not_found' | 'revoked';

/**
 * Managing keys by id, beside the lookup by digest: implemented by the registries whose keys
 * outlive a process (and by the memory registry, for tests). A revoked key has no grant.
 */
export interface KeyAdmin {
  /** Stores a new key under its digest; `key.revokedAt` must be absent. */
  createKey(keyDigest: string, key: ManagedApiKey): Promise<void>;
  /** Every managed key, revoked and expired ones too, oldest first. */
  listKeys(): Promise<readonly StoredApiKey[]>;
  findKey(id: string): Promise<StoredApiKey | undefined>;
  revokeKey(id: string, at: number): Promise<RevokeOutcome>;
  /**
   * Applies `changes` to the key and its grant in one step, recording `at` as its `updatedAt`:
   * the lookup by digest answers the new grant at once (and every instance's cache within its TTL).
   */
  updateKey(id: string, changes: KeyChanges, at: number): Promise<UpdateOutcome>;
}


/** Whether a grant's key has expired at `now`. */
export const isExpired = (grant: { readonly expiresAt?: number }, now: number): boolean =>
  grant.expiresAt !== undefined && grant.expiresAt <= now;
