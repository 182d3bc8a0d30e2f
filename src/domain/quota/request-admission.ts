import { holderOf, type ApiKeyGrant, type ApiKeyRegistry } from '../../ports/api-key-registry.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { Caller } from '../access/caller.js';
import type { Plan } from './plan.js';
import type { QuotaDecision } from './quota-decision.js';
import type { BanPolicy, QuotaPolicy } from './quota-rule.js';
import { assertDecidablePolicy } from './decidable-policy.js';

/**
 * The quota subject of a key, by its holder's digest (`holderOf`: a rolled key's secrets share
 * it): what its requests are counted, struck and banned under.
 */
export const keySubject = (holderDigest: string): string => `key:${holderDigest}`;

export interface Admission {
  /** The caller's plan; undefined when the request carried no known key (limited per address). */
  readonly plan: Plan | undefined;
  /** Who the key identifies (its holder's digest) and its role; undefined exactly when `plan` is. */
  readonly caller: Caller | undefined;
  readonly policy: QuotaPolicy;
  readonly decision: QuotaDecision;
}

export interface AdmissionOptions {
  /** Applies per client address to requests without a valid key; never banned. */
  readonly anonymousPolicy: QuotaPolicy;
  readonly ban: BanPolicy;
}

/** What a grant resolves to for one key, made once and reused by each of its requests. */
interface KeyHolder {
  readonly caller: Caller;
  readonly subject: string;
  readonly policy: QuotaPolicy;
}

/**
 * Who is calling and may they: one key lookup and one atomic quota decision per request.
 * Stays synchronous when both ports answer synchronously, so the in-memory hot path
 * allocates no promise.
 */
export class RequestAdmission {
  private readonly policies = new WeakMap<Plan, QuotaPolicy>();
  private readonly holders = new WeakMap<ApiKeyGrant, KeyHolder>();

  constructor(
    private readonly keys: ApiKeyRegistry,
    private readonly quotas: QuotaStore,
    private readonly options: AdmissionOptions,
  ) {
    // A ban or anonymous rule no store can decide fails here, at start, not on every request.
    assertDecidablePolicy({ ...options.anonymousPolicy, ban: options.ban });
  }

  admit(keyDigest: string | undefined, clientAddress: string): Admission | Promise<Admission> {
    if (keyDigest === undefined) return this.decideAnonymous(clientAddress);
    const grant = this.keys.grantOf(keyDigest);
    if (grant instanceof Promise) return grant.then((found) => this.decideFor(found, keyDigest, clientAddress));
    return this.decideFor(grant, keyDigest, clientAddress);
  }

  private decideFor(grant: ApiKeyGrant | undefined, keyDigest: string, clientAddress: string): Admission | Promise<Admission> {
    if (grant === undefined) return this.decideAnonymous(clientAddress);
    const { caller, subject, policy } = this.keyHolder(grant, keyDigest);
    return settle(grant.plan, caller, policy, this.quotas.decide(subject, policy));
  }

  private decideAnonymous(clientAddress: string): Admission | Promise<Admission> {
    const policy = this.options.anonymousPolicy;
    return settle(undefined, undefined, policy, this.quotas.decide(`addr:${clientAddress}`, policy));
  }

  // A registry hands out one grant object per key (and per cache refill), so this misses once
  // per key; the id check keeps a grant object shared by several keys correct. The subject is
  // kept too: building it per request would allocate a string on the hot path.
  private keyHolder(grant: ApiKeyGrant, keyDigest: string): KeyHolder {
    const id = holderOf(grant, keyDigest);
    let holder = this.holders.get(grant);
    if (holder === undefined || holder.caller.id !== id) {
      holder = { caller: Object.freeze({ id, role: grant.role }), subject: keySubject(id), policy: this.policyOf(grant.plan) };
      this.holders.set(grant, holder);
    }
    return holder;
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
  caller: Caller | undefined,
  policy: QuotaPolicy,
  decision: QuotaDecision | Promise<QuotaDecision>,
): Admission | Promise<Admission> {
  if (decision instanceof Promise) return decision.then((decided) => ({ plan, caller, policy, decision: decided }));
  return { plan, caller, policy, decision };
}
