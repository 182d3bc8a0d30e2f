import type { Role } from '../domain/access/caller.js';
import type { Plan } from '../domain/quota/plan.js';
import { hasOverrides, withOverrides, type RuleOverrides } from '../domain/quota/rule-overrides.js';
import type { CallScope } from './tracer.js';

/** What a key entitles its holder to: the quota of a plan and a role. */
export interface ApiKeyGrant {
  /** The plan the key's requests are decided under: its plan with its overrides applied (`secretGrant`). */
  readonly plan: Plan;
  readonly role: Role;
  /**
   * Epoch milliseconds from which the key is refused; absent: never. Whoever holds a grant
   * (a cache too) checks it against its clock at each lookup, so an expired key is refused at
   * once, however long its grant was cached.
   */
  readonly expiresAt?: number;
  /**
   * The digest the key's quota and orders are known by, when it is not the digest the grant was
   * looked up by: a rolled key's secrets all name the digest it was created with, so they count
   * against one quota and own the same orders. Absent: the looked-up digest itself.
   */
  readonly holder?: string;
}

/** Who a grant's requests are counted and known as: see `ApiKeyGrant.holder`. */
export const holderOf = (grant: ApiKeyGrant, keyDigest: string): string => grant.holder ?? keyDigest;

/**
 * API keys are known only by their SHA-256 digest (lowercase hex): no raw key is ever stored.
 * In-memory registries may answer synchronously: the lookup is on every request's path.
 * A registry answers no grant for an expired key.
 */
export interface ApiKeyRegistry {
  grantOf(keyDigest: string, scope?: CallScope): ApiKeyGrant | undefined | Promise<ApiKeyGrant | undefined>;
  register(keyDigest: string, grant: ApiKeyGrant): Promise<void>;
}

/** A key created by an operator (`petstore keys create`): everything about it but the key itself. */
export interface ManagedApiKey {
  /** Public, to list and revoke the key by: never the key nor its digest. */
  readonly id: string;
  readonly label: string;
  readonly plan: Plan;
  /** The limits (and modes) of rules of its plan this key has of its own; absent: none. Never `{}`. */
  readonly overrides?: RuleOverrides;
  readonly role: Role;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly expiresAt?: number;
  readonly revokedAt?: number;
  /** The last `updateKey`; absent: never updated. */
  readonly updatedAt?: number;
  /** The last `rollKey`; absent: never rolled. */
  readonly rolledAt?: number;
  /**
   * Until when (epoch ms, exclusive) the secret before the last roll is still accepted, as the
   * roll set it; absent: a roll without grace, or none. It may lie in the past; a revocation
   * brings it down to the revocation's time, and the key's expiry ends that secret too.
   */
  readonly previousSecretUntil?: number;
}

/**
 * A managed key and the digest its requests are known by (the one it was created with, whatever
 * its secret is now): to read its quota, never to show.
 */
export interface StoredApiKey {
  readonly key: ManagedApiKey;
  readonly digest: string;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found';

/** What `updateKey` changes; an absent field keeps its value. */
export interface KeyChanges {
  readonly plan?: Plan;
  /** The key's overrides after the change, whole: `{}` removes every one. */
  readonly overrides?: RuleOverrides;
  readonly role?: Role;
  readonly label?: string;
  /** Epoch milliseconds. */
  readonly expiresAt?: number;
}

/** The key as updated; or why nothing changed: no such id, or the key is revoked (a revoked key stays revoked, as it was). */
export type UpdateOutcome = { readonly updated: ManagedApiKey } | 'not_found' | 'revoked';

/** The key as rolled; or why nothing changed: no such id, or the key is revoked. */
export type RollOutcome = { readonly rolled: ManagedApiKey } | 'not_found' | 'revoked';

/**
 * Managing keys by id, beside the lookup by digest: implemented by the registries whose keys
 * outlive a process (and by the memory registry, for tests). A revoked key has no grant.
 */
export interface KeyAdmin {
  /** Stores a new key under its digest; `key.revokedAt`, `rolledAt` and `previousSecretUntil` must be absent. */
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
  /**
   * Gives the key a new secret, `newDigest`, in one step, recording `at` as its `rolledAt`: the
   * new secret answers the key's grant at once, with the key's `holder`, and so does the secret it
   * had until `graceEndsAt` (epoch ms, exclusive; `at` or earlier: not at all). One previous secret
   * at most: a roll during a grace ends the older secret at once. An expired key may be rolled
   * (its secrets stay refused until `updateKey` moves its expiry); a revoked one may not. A
   * `newDigest` that is any key's secret already is refused with an error, as in `createKey`.
   * Later updates and the revocation apply to both secrets.
   */
  rollKey(id: string, newDigest: string, graceEndsAt: number, at: number): Promise<RollOutcome>;
}


/** The key as `changes` leave it at `at`: a registry's one way to apply an update. */
export function updatedKey(key: ManagedApiKey, changes: KeyChanges, at: number): ManagedApiKey {
  const { overrides: _before, ...kept } = key;
  const { overrides: given, ...changed } = changes;
  const overrides = given ?? key.overrides;
  return { ...kept, ...changed, ...(hasOverrides(overrides) ? { overrides } : {}), updatedAt: at };
}

/** Whether a grant's key has expired at `now`. */
export const isExpired = (grant: { readonly expiresAt?: number }, now: number): boolean =>
  grant.expiresAt !== undefined && grant.expiresAt <= now;

export const KEY_STATES = ['active', 'expired', 'revoked'] as const;
export type KeyState = (typeof KEY_STATES)[number];

/** A managed key's state at `now`: what `keys list` shows and the admin API answers. */
export const stateOf = (key: ManagedApiKey, now: number): KeyState =>
  key.revokedAt !== undefined ? 'revoked' : isExpired(key, now) ? 'expired' : 'active';

/**
 * The grant a secret (`secretDigest`) of the managed key first created as `keyDigest` answers:
 * the key's plan with its overrides applied (here, once per grant, never per request) and its
 * role, the key's digest as `holder` unless the secret is that digest, and for the secret before
 * the last roll (`previous`) an expiry at the end of its grace, or at the key's own expiry if
 * that comes first.
 */
export function secretGrant(
  key: Pick<ManagedApiKey, 'plan' | 'overrides' | 'role' | 'expiresAt' | 'previousSecretUntil'>,
  keyDigest: string,
  secretDigest: string,
  previous: boolean,
): ApiKeyGrant {
  const { plan, overrides, role, expiresAt, previousSecretUntil: graceEnd } = key;
  const until = previous && graceEnd !== undefined && (expiresAt === undefined || graceEnd < expiresAt) ? graceEnd : expiresAt;
  const effective = withOverrides(plan, overrides);
  return { plan: effective, role, ...(until === undefined ? {} : { expiresAt: until }), ...(secretDigest === keyDigest ? {} : { holder: keyDigest }) };
}
