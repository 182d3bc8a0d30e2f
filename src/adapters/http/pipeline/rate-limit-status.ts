import { keySubject, RequestAdmission, type Admission, type AdmissionOptions, type CreditAccounts } from '../../../domain/quota/request-admission.js';
import type { QuotaDecision } from '../../../domain/quota/quota-decision.js';
import type { QuotaPolicy } from '../../../domain/quota/quota-rule.js';
import type { ApiKeyRegistry } from '../../../ports/api-key-registry.js';
import type { ConcurrencySlots } from '../../../ports/concurrency-slots.js';
import type { QuotaStore } from '../../../ports/quota-store.js';
import { peekingQuotaStore } from '../../peeking-quota-store.js';
import { RATE_LIMIT_STATUS_RULE } from '../contract/rate-limit-status-rule.js';
import type { QuotaStanding } from '../wire/request-context.js';
import type { CallScope } from '../../../ports/tracer.js';

/**
 * A request of GET /rate_limit with a valid key: decided by the route's own rule, reporting the
 * plan's standing. The admission's policy and decision are what its rate-limit fields advertise:
 * the route's rule, then the plan's as they stand.
 */
export interface StatusAdmission {
  readonly admission: Admission;
  readonly standing: QuotaStanding;
}

const STATUS_POLICY: QuotaPolicy = { rules: [RATE_LIMIT_STATUS_RULE] };
/** Beside `key:` and `addr:` of the admission, so the route's counts never mix with a plan's. */
const STATUS_SUBJECT = 'rate_limit:';

/**
 * The route's rule first, so that on a tie it is the one X-RateLimit-* describe: the only rule
 * that refuses this route. One object per plan policy, so its RateLimit-Policy is built once.
 */
const advertisedPolicies = new WeakMap<QuotaPolicy, QuotaPolicy>();
const advertisedPolicy = (plan: QuotaPolicy): QuotaPolicy => {
  let policy = advertisedPolicies.get(plan);
  if (policy === undefined) {
    policy = { rules: [RATE_LIMIT_STATUS_RULE, ...plan.rules] };
    advertisedPolicies.set(plan, policy);
  }
  return policy;
};

/** The route's decision (its verdict and Retry-After) with the plan's remaining and resets after its own. */
const advertisedDecision = (own: QuotaDecision, plan: QuotaDecision): QuotaDecision => ({
  verdict: own.verdict,
  decidedAt: own.decidedAt,
  retryAt: own.retryAt,
  remaining: [own.remaining[0] ?? 0, ...plan.remaining],
  resetAt: [own.resetAt[0] ?? own.decidedAt, ...plan.resetAt],
});

/**
 * What GET /rate_limit needs beside the admission: the caller's standing, read through a
 * RequestAdmission of its own over a peeking store (so the subject and policy read are the very
 * ones every other request is counted against), and the route's own rule, counted per key.
 */
export class RateLimitStatus {
  private readonly standings: RequestAdmission;

  /** `slots` and `credits`: where the admission's caps hold their slots and its credits are spent, read for a plan that has them. */
  constructor(
    keys: ApiKeyRegistry,
    private readonly quotas: QuotaStore,
    options: AdmissionOptions,
    private readonly slots?: ConcurrencySlots,
    private readonly credits?: CreditAccounts,
  ) {
    this.standings = new RequestAdmission(keys, peekingQuotaStore(quotas), options);
  }

  /** Undefined when the key is not a valid one: the request is then admitted like any without a key. */
  async admit(keyDigest: string, clientAddress: string, scope?: CallScope): Promise<StatusAdmission | undefined> {
    const { plan, caller, policy, decision } = await this.standings.admit(keyDigest, clientAddress, undefined, scope);
    if (plan === undefined || caller === undefined) return undefined;
    const own = await this.quotas.decide(STATUS_SUBJECT + caller.id, STATUS_POLICY, undefined, scope);
    const subject = keySubject(caller.id);
    const { slots, credits: accounts } = this;
    const [inFlight, credits] = await Promise.all([
      plan.concurrency === undefined || slots === undefined ? undefined : slots.inFlight(subject, scope),
      plan.credits === undefined || accounts === undefined ? undefined : accounts.ledger.standing(subject, plan.credits, accounts.clock.now(), scope),
    ]);
    return {
      admission: { plan, caller, policy: advertisedPolicy(policy), costs: 1, decision: advertisedDecision(own, decision) },
      standing: { plan, decision, ...(inFlight === undefined ? {} : { inFlight }), ...(credits === undefined ? {} : { credits }) },
    };
  }
}
