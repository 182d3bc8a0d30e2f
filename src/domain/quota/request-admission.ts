import { holderOf, type ApiKeyGrant, type ApiKeyRegistry } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { ConcurrencySlots, SlotGrant } from '../../ports/concurrency-slots.js';
import type { CreditLedger, CreditSpend } from '../../ports/credit-ledger.js';
import type { CreditRule } from '../credits/credit-rule.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { CallScope } from '../../ports/tracer.js';
import type { Caller } from '../access/caller.js';
import { capApplies, type ConcurrencyRule } from './concurrency-rule.js';
import type { Plan } from './plan.js';
import { costsOf, isUniformPlan, ruleCostOf } from './plan-rules.js';
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
  /**
   * Admitted: what the quota rules decided. Refused by the plan's concurrency cap (`slot` not
   * granted): a peek, counting nothing, so the refusal still tells the quota's standing.
   */
  readonly decision: QuotaDecision;
  /** The plan's concurrency cap, when it applies to the request and the quota rules admitted it or were not asked; absent otherwise. */
  readonly slot?: SlotUse;
  /** The answers each rule of the plan refunds (RequestAdmission.refund); undefined when no rule does, or without a key. */
  readonly refunds?: PlanRefunds | undefined;
  /** The plan's credits, when they apply to the request and every other rule admitted it; absent otherwise. */
  readonly credit?: CreditUse;
}

/** A request's spend of its plan's credits. */
export interface CreditUse {
  readonly rule: CreditRule;
  /** False: the balance held too few; the request is refused, and nothing of it stays counted (its quota units and slot are given back). */
  readonly granted: boolean;
  /** What the request spends, or would have. */
  readonly units: number;
  /** The balance after the spend, or the one that refused it. */
  readonly balance: number;
  /** Epoch ms of the next refill; undefined when the credits never refill. */
  readonly refillAt: number | undefined;
  /** Epoch ms the ledger decided at: what a refusal's Retry-After counts from. */
  readonly decidedAt: number;
  /** Gives the units back (a refunded answer, an idempotent replay); a no-op when not granted. Call it at most once. */
  readonly refund: () => void | Promise<void>;
}

/** Where plans' credits are spent, and the time they are spent at. */
export interface CreditAccounts {
  readonly ledger: CreditLedger;
  readonly clock: Clock;
}

/** A request's slot under its plan's concurrency cap. */
export interface SlotUse {
  readonly rule: ConcurrencyRule;
  /** False: the cap refused the request, which spent nothing under the quota rules. */
  readonly granted: boolean;
  /** The key's requests in flight, this one included when granted. */
  readonly inFlight: number;
  /** Gives the slot back once the answer is written or the client is gone; a no-op when not granted. Call it once. */
  readonly release: () => void | Promise<void>;
}

const NOTHING_TO_RELEASE = (): void => undefined;

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

  /**
   * `slots`: where plans' concurrency caps hold their slots; `credits`: where plans' credits are
   * spent. Absent, caps and credits are not applied (a peek at a key's standing).
   */
  constructor(
    private readonly keys: ApiKeyRegistry,
    private readonly quotas: QuotaStore,
    private readonly options: AdmissionOptions,
    private readonly slots?: ConcurrencySlots,
    private readonly credits?: CreditAccounts,
  ) {
    // A ban or anonymous rule no store can decide fails here, at start, not on every request.
    assertDecidablePolicy({ ...options.anonymousPolicy, ban: options.ban });
  }

  /**
   * `operationId`: the routed operation's, which the plan's rules match; undefined when no
   * operation was routed (404, 405). `scope`: the request (CallScope), handed to every store call
   * the admission makes, its slot's release and its refunds included.
   */
  admit(keyDigest: string | undefined, clientAddress: string, operationId?: string, scope?: CallScope): Admission | Promise<Admission> {
    if (keyDigest === undefined) return this.decideAnonymous(clientAddress, scope);
    const grant = this.keys.grantOf(keyDigest, scope);
    if (grant instanceof Promise) return grant.then((found) => this.decideFor(found, keyDigest, clientAddress, operationId, scope));
    return this.decideFor(grant, keyDigest, clientAddress, operationId, scope);
  }

  /**
   * Gives back `units` (rule-refunds.ts, refundUnits) of a request `admitted` for a key: to
   * each rule's bucket that counted it, in the store that counted it. Nothing without a key.
   */
  refund(admitted: Admission, units: RuleCosts, scope?: CallScope): void | Promise<void> {
    if (admitted.caller === undefined) return;
    return this.quotas.refund(keySubject(admitted.caller.id), admitted.policy, units, admitted.decision, scope);
  }

  private decideFor(
    grant: ApiKeyGrant | undefined,
    keyDigest: string,
    clientAddress: string,
    operationId: string | undefined,
    scope: CallScope | undefined,
  ): Admission | Promise<Admission> {
    if (grant === undefined) return this.decideAnonymous(clientAddress, scope);
    const credits = grant.plan.credits;
    const decided = this.decideQuota(grant, keyDigest, operationId, scope);
    if (credits === undefined || this.credits === undefined) return decided;
    const units = ruleCostOf(credits, operationId);
    if (units === 0) return decided;
    const { subject } = this.keyHolder(grant, keyDigest);
    const accounts = this.credits;
    if (decided instanceof Promise) return decided.then((admitted) => this.spendCredits(admitted, accounts, subject, credits, units, scope));
    return this.spendCredits(decided, accounts, subject, credits, units, scope);
  }

  /**
   * Spent last, once every other rule and the cap admitted the request: a request they refuse
   * spends no credit. One the credits refuse gives back what the others counted.
   */
  private spendCredits(
    admitted: Admission,
    accounts: CreditAccounts,
    subject: string,
    rule: CreditRule,
    units: number,
    scope: CallScope | undefined,
  ): Admission | Promise<Admission> {
    if (admitted.decision.verdict !== 'admitted' || admitted.slot?.granted === false) return admitted;
    let spend: CreditSpend | Promise<CreditSpend>;
    const decidedAt = accounts.clock.now();
    try {
      spend = accounts.ledger.spend(subject, rule, units, decidedAt, scope);
    } catch (error) {
      this.countNothing(admitted, subject, scope);
      throw error;
    }
    const spending: Spending = { accounts, subject, rule, units, decidedAt, scope };
    if (!(spend instanceof Promise)) return this.withCredit(admitted, spending, spend);
    return spend.then(
      (spent) => this.withCredit(admitted, spending, spent),
      (error: unknown) => {
        this.countNothing(admitted, subject, scope);
        throw error;
      },
    );
  }

  private withCredit(admitted: Admission, { accounts, subject, rule, units, decidedAt, scope }: Spending, spend: CreditSpend): Admission {
    const { balance, refillAt } = spend;
    if (!spend.granted) {
      this.countNothing(admitted, subject, scope);
      const { plan, caller, policy, costs, decision } = admitted;
      return { plan, caller, policy, costs, decision, credit: { rule, granted: false, units, balance, refillAt, decidedAt, refund: NOTHING_TO_RELEASE } };
    }
    const refund = (): void | Promise<void> => accounts.ledger.refund(subject, rule, units, spend.period, accounts.clock.now(), scope);
    const credit: CreditUse = { rule, granted: true, units, balance, refillAt, decidedAt, refund };
    // Written out, not spread: a spread of the admission costs more than the spend itself (bench:limits-cost).
    const { plan, caller, policy, costs, decision, slot, refunds } = admitted;
    return slot === undefined ? { plan, caller, policy, costs, decision, refunds, credit } : { plan, caller, policy, costs, decision, slot, refunds, credit };
  }

  /** A request refused after it was counted (its credits too few, or unreadable): its units under every rule and its slot come back. */
  private countNothing(admitted: Admission, subject: string, scope: CallScope | undefined): void {
    if (admitted.slot !== undefined) giveBack(admitted.slot);
    const { policy, costs, decision } = admitted;
    const units = typeof costs === 'number' ? policy.rules.map(() => costs) : costs;
    // A refund the store fails leaves the units counted until their window passes: nothing to wait for.
    const refunded = this.quotas.refund(subject, policy, units, decision, scope);
    if (refunded instanceof Promise) refunded.catch(() => undefined);
  }

  private decideQuota(grant: ApiKeyGrant, keyDigest: string, operationId: string | undefined, scope: CallScope | undefined): Admission | Promise<Admission> {
    const { caller, subject, policy, costs, refunds } = this.keyHolder(grant, keyDigest);
    const spent = costs.of(operationId);
    const cap = grant.plan.concurrency;
    if (cap === undefined || this.slots === undefined || !capApplies(cap, operationId)) {
      return settle(grant.plan, caller, policy, spent, refunds, this.quotas.decide(subject, policy, spent, scope));
    }
    const slot = this.slots.acquire(subject, cap.limit, scope);
    const held = { plan: grant.plan, caller, policy, spent, refunds, subject, cap, slots: this.slots, scope };
    return slot instanceof Promise ? slot.then((taken) => this.decideHolding(held, taken)) : this.decideHolding(held, slot);
  }

  /**
   * The slot is taken before the quota is asked, so a request the cap refuses spends nothing;
   * one the quota refuses (or cannot decide) gives its slot back at once.
   */
  private decideHolding(held: HeldRequest, taken: SlotGrant): Admission | Promise<Admission> {
    const { plan, caller, policy, spent, refunds, subject, cap, slots, scope } = held;
    if (!taken.granted) {
      // No refunds: the quota was only peeked at, so nothing was counted to give back.
      const refused: SlotUse = { rule: cap, granted: false, inFlight: taken.inFlight, release: NOTHING_TO_RELEASE };
      const peek = this.quotas.peek(subject, policy, spent, scope);
      if (peek instanceof Promise) return peek.then((decision) => ({ plan, caller, policy, costs: spent, decision, slot: refused }));
      return { plan, caller, policy, costs: spent, decision: peek, slot: refused };
    }
    // A granted slot always has its lease (SlotGrant).
    const lease = taken.lease!;
    const slot: SlotUse = { rule: cap, granted: true, inFlight: taken.inFlight, release: () => slots.release(subject, lease, scope) };
    let decision: QuotaDecision | Promise<QuotaDecision>;
    try {
      decision = this.quotas.decide(subject, policy, spent, scope);
    } catch (error) {
      giveBack(slot);
      throw error;
    }
    if (!(decision instanceof Promise)) return settleHolding(plan, caller, policy, spent, refunds, decision, slot);
    return decision.then(
      (decided) => settleHolding(plan, caller, policy, spent, refunds, decided, slot),
      (error: unknown) => {
        giveBack(slot);
        throw error;
      },
    );
  }

  // Anonymous callers keep their one rule over every request, whatever the operation.
  private decideAnonymous(clientAddress: string, scope: CallScope | undefined): Admission | Promise<Admission> {
    const policy = this.options.anonymousPolicy;
    return settle(undefined, undefined, policy, 1, undefined, this.quotas.decide(`addr:${clientAddress}`, policy, 1, scope));
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

/** A request's spend of its plan's credits, on its way to the ledger. */
interface Spending {
  readonly accounts: CreditAccounts;
  readonly subject: string;
  readonly rule: CreditRule;
  readonly units: number;
  readonly decidedAt: number;
  readonly scope: CallScope | undefined;
}

/** A request of a capped plan, between its slot and its quota decision. */
interface HeldRequest {
  readonly plan: Plan;
  readonly caller: Caller;
  readonly policy: QuotaPolicy;
  readonly spent: number | RuleCosts;
  readonly refunds: PlanRefunds | undefined;
  readonly subject: string;
  readonly cap: ConcurrencyRule;
  readonly slots: ConcurrencySlots;
  readonly scope: CallScope | undefined;
}

// A release the store fails leaves a lease that expires on its own (ConcurrencySlots): nothing to wait for.
const giveBack = (slot: SlotUse): void => {
  const released = slot.release();
  if (released instanceof Promise) released.catch(() => undefined);
};

function settleHolding(
  plan: Plan,
  caller: Caller,
  policy: QuotaPolicy,
  costs: number | RuleCosts,
  refunds: PlanRefunds | undefined,
  decision: QuotaDecision,
  slot: SlotUse,
): Admission {
  if (decision.verdict === 'admitted') return { plan, caller, policy, costs, decision, slot, refunds };
  giveBack(slot);
  return { plan, caller, policy, costs, decision, refunds };
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
