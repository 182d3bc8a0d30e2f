import type { QuotaDecision } from '../domain/quota/quota-decision.js';
import type { QuotaPolicy } from '../domain/quota/quota-rule.js';

/**
 * Decides and records one request of `subject` in a single atomic step: every rule, the
 * strike and the ban, so no concurrent request can slip between a check and its count.
 * In-memory stores answer synchronously (no promise on the hot path); remote ones with a
 * promise, rejecting with StoreUnavailableError when the store cannot answer.
 */
export interface QuotaStore {
  decide(subject: string, policy: QuotaPolicy): QuotaDecision | Promise<QuotaDecision>;
}
