import { holderOf, type ApiKeyGrant, type ApiKeyRegistry } from '../../ports/api-key-registry.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { Caller } from '../access/caller.js';
import type { Plan } from './plan.js';
import { costsOf, isUniformPlan } from './plan-rules.js';
import type { QuotaDecision } from './quota-decision.js';
import type { BanPolicy, QuotaPolicy, RuleCosts } from './quota-rule.js';
import { assertDecidablePolicy } from './decidable-policy.js';
import { planRefundsOf, type PlanRefunds } from './rule-refunds.js';

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
  /**
   * What the request spent under the policy's rules: 1 under every rule (today's plans, the
   * anonymous rule), or each rule's own (RuleCosts, 0 where the request does not match the rule).
   */
  readonly costs: number | RuleCosts;
  readonly decision: QuotaDecision;
  /** The answers each rule of the plan refunds (RequestAdmission.refund); undefined when no rule does, or without a key. */
  readonly refunds?: PlanRefunds | undefined;
}

export interface AdmissionOptions {
  /** Applies per client address to requests without a valid key; never banned. */
  readonly anonymousPolicy: QuotaPolicy;
  readonly ban: BanPolicy;
}

/** What a grant resolves to for one key, made once and reused by each of its requests. */
interface KeyHolder extends DecidedPlan {
  readonly caller: Caller;
  readonly subject: string;
}

/** What a plan's requests are decided under, made once per plan: its policy, its costs by operation and its refunds. */
interface DecidedPlan {
  readonly policy: QuotaPolicy;
  readonly costs: PlanCosts;
  readonly refunds: PlanRefunds | undefined;
}

/**
 * What a plan's requests spend, by operation: a uniform plan (every rule matching every request
 * at 1) spends the plain 1, so today's plans take the hot path they always took; any other keeps
 * one frozen RuleCosts per operation, made at its first request.
 */
class PlanCosts {
  private readonly uniform: boolean;
  private readonly byOperation = new Map<string | undefined, RuleCosts>();

  constructor(private readonly plan: Plan) {
    this.uniform = isUniformPlan(plan);
  }

  of(operationId: string | undefined): number | RuleCosts {
    if (this.uniform) return 1;
    let costs = this.byOperation.get(operationId);
    if (costs === undefined) {
      costs = costsOf(this.plan, operationId);
      this.byOperation.set(operationId, costs);
    }
    return costs;
  }
}

/**
 * Who is calling and may they: one key lookup and one atomic quota decision per request.
 * Stays synchronous when both ports answer synchronously, so the in-memory hot path
 * allocates no promise.
 */
export class RequestAdmission {
  /** What each plan is decided under. */
  private readonly plans = new WeakMap<Plan, DecidedPlan>();
  private readonly holders = new WeakMap<ApiKeyGrant, KeyHolder>();

  constructor(
    private readonly keys: ApiKeyRegistry,
    private readonly quotas: QuotaStore,
    private readonly options: AdmissionOptions,
  ) {
    // A ban or anonymous rule no store can decide fails here, at start, not on every request.
    assertDecidablePolicy({ ...options.anonymousPolicy, ban: options.ban });
  }

  /** `operationId`: the routed operation's, which the plan's rules match; undefined when no operation was routed (404, 405). */
  admit(keyDigest: string | undefined, clientAddress: string, operationId?: string): Admission | Promise<Admission> {
    if (keyDigest === undefined) return this.decideAnonymous(clientAddress);
    const grant = this.keys.grantOf(keyDigest);
    if (grant instanceof Promise) return grant.then((found) => this.decideFor(found, keyDigest, clientAddress, operationId));
    return this.decideFor(grant, keyDigest, clientAddress, operationId);
  }

  /**
   * Gives back `units` (rule-refunds.ts, refundUnits) of a request `admitted` for a key: to
   * each rule's bucket that counted it, in the store that counted it. Nothing without a key.
   */
  refund(admitted: Admission, units: RuleCosts): void | Promise<void> {
    if (admitted.caller === undefined) return;
    return this.quotas.refund(keySubject(admitted.caller.id), admitted.policy, units, admitted.decision);
  }

  private decideFor(grant: ApiKeyGrant | undefined, keyDigest: string, clientAddress: string, operationId: string | undefined): Admission | Promise<Admission> {
    if (grant === undefined) return this.decideAnonymous(clientAddress);
    const { caller, subject, policy, costs, refunds } = this.keyHolder(grant, keyDigest);
    const spent = costs.of(operationId);
    return settle(grant.plan, caller, policy, spent, refunds, this.quotas.decide(subject, policy, spent));
  }

  // Anonymous callers keep their one rule over every request, whatever the operation.
  private decideAnonymous(clientAddress: string): Admission | Promise<Admission> {
    const policy = this.options.anonymousPolicy;
    return settle(undefined, undefined, policy, 1, undefined, this.quotas.decide(`addr:${clientAddress}`, policy, 1));
  }

  // A registry hands out one grant object per key (and per cache refill), so this misses once
  // per key; the id check keeps a grant object shared by several keys correct. The subject is
  // kept too: building it per request would allocate a string on the hot path.
  private keyHolder(grant: ApiKeyGrant, keyDigest: string): KeyHolder {
    const id = holderOf(grant, keyDigest);
    let holder = this.holders.get(grant);
    if (holder === undefined || holder.caller.id !== id) {
      holder = { caller: Object.freeze({ id, role: grant.role }), subject: keySubject(id), ...this.decidedUnder(grant.plan) };
      this.holders.set(grant, holder);
    }
    return holder;
  }

  private decidedUnder(plan: Plan): DecidedPlan {
    let decided = this.plans.get(plan);
    if (decided === undefined) {
      decided = { policy: { rules: plan.rules, ban: this.options.ban }, costs: new PlanCosts(plan), refunds: planRefundsOf(plan.rules) };
      this.plans.set(plan, decided);
    }
    return decided;
  }
}

function settle(
  plan: Plan | undefined,
  caller: Caller | undefined,
  policy: QuotaPolicy,
  costs: number | RuleCosts,
  refunds: PlanRefunds | undefined,
  decision: QuotaDecision | Promise<QuotaDecision>,
): Admission | Promise<Admission> {
  if (decision instanceof Promise) return decision.then((decided) => ({ plan, caller, policy, costs, decision: decided, refunds }));
  return { plan, caller, policy, costs, decision, refunds };
}
