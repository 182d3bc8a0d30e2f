import type { Plan } from '../domain/quota/plan.js';

/**
 * API keys are known only by their SHA-256 digest (lowercase hex): no raw key is ever stored.
 * In-memory registries may answer synchronously: the lookup is on every request's path.
 */
export interface ApiKeyRegistry {
  planOf(keyDigest: string): Plan | undefined | Promise<Plan | undefined>;
  register(keyDigest: string, plan: Plan): Promise<void>;
}
