import { peekingQuotaStore } from '../../adapters/peeking-quota-store.js';
import type { QuotaDecision } from '../../domain/quota/quota-decision.js';
import type { BanPolicy } from '../../domain/quota/quota-rule.js';
import { RequestAdmission } from '../../domain/quota/request-admission.js';
import { withOverrides } from '../../domain/quota/rule-overrides.js';
import type { ApiKeyGrant, StoredApiKey } from '../../ports/api-key-registry.js';
import type { QuotaStore } from '../../ports/quota-store.js';

/** Never consulted: the key's grant is always found. */
const NO_ANONYMOUS = { rules: [] };

/**
 * A key's standing in its quota as a request of it would find it now, counting nothing: read
 * through a RequestAdmission over a peeking store, as GET /v1/rate_limit reads it, so the subject
 * and the policy read (its plan with its overrides) are the very ones its requests are counted against. The grant is the
 * stored one, whether the key is still valid or not: a revoked or expired key's counters are
 * shown as they stand.
 */
export async function peekKeyUsage(quotas: QuotaStore, { key, digest }: StoredApiKey, ban: BanPolicy): Promise<QuotaDecision> {
  const grant: ApiKeyGrant = { plan: withOverrides(key.plan, key.overrides), role: key.role };
  const keys = { grantOf: () => grant, register: () => Promise.reject(new Error('a usage reading registers no key')) };
  const admission = await new RequestAdmission(keys, peekingQuotaStore(quotas), { anonymousPolicy: NO_ANONYMOUS, ban }).admit(digest, '');
  return admission.decision;
}
