import type { QuotaDecision } from '../domain/quota/quota-decision.js';

/**
 * When a client that obeys a refusal's Retry-After sends again: whole seconds from the decision,
 * rounded up, at least 1, as the HTTP layer writes the header. Written here, apart from the
 * engine's own, so the checks hold a store to the header rather than to itself
 * (test/http/ban-retry-after.test.ts reads the real header).
 */
export const toldRetryAt = (decision: QuotaDecision): number =>
  decision.decidedAt + 1000 * Math.max(1, Math.ceil((decision.retryAt - decision.decidedAt) / 1000));
