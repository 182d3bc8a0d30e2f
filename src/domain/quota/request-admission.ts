import type { ApiKeyRegistry } from '../../ports/api-key-registry.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { Plan } from './plan.js';
import type { QuotaDecision } from './quota-decision.js';
import type { BanPolicy, QuotaPolicy } from './quota-rule.js';

export interface Admission {
  /** The caller's plan; undefined when the request carried no known key (limited per address). */
  readonly plan: Plan | undefined;
  readonly policy: QuotaPolicy;
  readonly decision: QuotaDecision;
}

export interface AdmissionOptions {
  /** Applies per client address to requests without a valid key; never banned. */
  readonly anonymousPolicy: QuotaPolicy;
  readonly ban: BanPolicy;
}

/**
 * Who is calling and may they: one key lookup and one atomic quota decision per request.
 * Stays synchronous when both ports answer synchronously, so the in-memory hot path
 * allocates no promise.
 */
export class RequestAdmission {
  private readonly policies = new WeakMap<Plan, QuotaPolicy>();

  constructor(
    private readonly keys: ApiKeyRegistry,
    private readonly quotas: QuotaStore,
    private readonly options: AdmissionOptions,
  ) {}

  admit(keyDigest: string | undefined, clientAddress: string): Admission | Promise<Admission> {
    if (keyDigest === undefined) return this.decideAnonymous(clientAddress);
    const plan = this.keys.planOf(keyDigest);
    if (plan instanceof Promise) return plan.then((found) => this.decideFor(found, keyDigest, clientAddress));
    return this.decideFor(plan, keyDigest, clientAddress);
  }

  private decideFor(plan: Plan | undefined, keyDigest: string, clientAddress: string): Admission | Promise<Admission> {
    if (plan === undefined) return this.decideAnonymous(clientAddress);
    const policy = this.policyOf(plan);
    return settle(plan, policy, this.quotas.decide(`key:${keyDigest}`, policy));
  }

  private decideAnonymous(clientAddress: string): Admission | Promise<Admission> {
    const policy = this.options.anonymousPolicy;
    return settle(undefined, policy, this.quotas.decide(`addr:${clientAddress}`, policy));
  }

  private policyOf(plan: Plan): QuotaPolicy {
    let policy = this.policies.get(plan);
    if (policy === undefined) {
      policy = { rules: plan.rules, ban: this.options.ban };
      this.policies.set(plan, policy);
    }
    return policy;
  }
}

function settle(
  plan: Plan | undefined,
  policy: QuotaPolicy,
  decision: QuotaDecision | Promise<QuotaDecision>,
): Admission | Promise<Admission> {
  if (decision instanceof Promise) return decision.then((decided) => ({ plan, policy, decision: decided }));
  return { plan, policy, decision };
}
