import type { QuotaStore } from '../ports/quota-store.js';

/**
 * `quotas` as a reading of a key's standing sees it: every decision a peek, counting and
 * striking nothing. Handed to a RequestAdmission, it reads the very subject and policy the
 * key's requests are counted under, which only the admission forms. A standing is every rule's
 * room for one unit, whatever the rules an operation matches would charge.
 */
export const peekingQuotaStore = (quotas: QuotaStore): QuotaStore => ({
  decide: (subject, policy, _cost, scope) => quotas.peek(subject, policy, undefined, scope),
  peek: (subject, policy, cost, scope) => quotas.peek(subject, policy, cost, scope),
  reset: (subject) => quotas.reset(subject),
  // Its admissions counted nothing, so nothing is theirs to give back.
  refund: () => undefined,
});
