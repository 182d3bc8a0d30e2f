import type { Role } from '../domain/access/caller.js';
import type { Plan } from '../domain/quota/plan.js';

/** What a key entitles its holder to: the quota of a plan and a role. */
export interface ApiKeyGrant {
  readonly plan: Plan;
  readonly role: Role;
}

/**
 * API keys are known only by their SHA-256 digest (lowercase hex): no raw key is ever stored.
 * In-memory registries may answer synchronously: the lookup is on every request's path.
 */
export interface ApiKeyRegistry {
  grantOf(keyDigest: string): ApiKeyGrant | undefined | Promise<ApiKeyGrant | undefined>;
  register(keyDigest: string, grant: ApiKeyGrant): Promise<void>;
}
