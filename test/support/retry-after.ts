import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';

/**
 * When a client that obeys a refusal's Retry-After sends again: whole seconds from the
 * decision, rounded up, at least 1, as the HTTP layer writes the header. Restated here so
 * the domain and store tests hold the engine to the header without depending on the HTTP
 * adapter; test/http/ban-retry-after.test.ts reads the real header.
 */
export const toldRetryAt = (decision: QuotaDecision): number =>
  decision.decidedAt + 1000 * Math.max(1, Math.ceil((decision.retryAt - decision.decidedAt) / 1000));
