import type { QuotaDecision } from '../domain/quota/quota-decision.js';
import type { QuotaPolicy, RuleCosts } from '../domain/quota/quota-rule.js';
import type { CallScope } from './tracer.js';

/**
 * Decides and records one request of `subject` in a single atomic step: every rule, the
 * strike and the ban, so no concurrent request can slip between a check and its count.
 * In-memory stores answer synchronously (no promise on the hot path); remote ones with a
 * promise, rejecting with StoreUnavailableError when the store cannot answer.
 */
export interface QuotaStore {
  /**
   * A request of `cost`: its units under each rule (RuleCosts, indexed like `policy.rules`, 0
   * where the request does not match the rule), or one number for every rule (default 1).
   * Each is an integer from 0 to its rule's limit, else a RangeError. Admitted only if every
   * enforced rule it matches has room for its cost; then every rule it matches counts it,
   * shadow rules included. A shadow rule never refuses: without room it is in `shadowed`.
   */
  decide(subject: string, policy: QuotaPolicy, cost?: number | RuleCosts, scope?: CallScope): QuotaDecision | Promise<QuotaDecision>;
  /**
   * What a request of `cost` (as `decide`'s) would be answered now, counting and striking
   * nothing: `remaining` is each rule's room before it, and `strikes` is set. A subject never
   * seen has its whole quota.
   */
  peek(subject: string, policy: QuotaPolicy, cost?: number | RuleCosts, scope?: CallScope): QuotaDecision | Promise<QuotaDecision>;
  /** Forgets the subject: its counters, its strikes and any ban. */
  reset(subject: string): void | Promise<void>;
  /**
   * Gives back `units` (indexed like `policy.rules`, each from 0 to its rule's limit, else a
   * RangeError) of the request this store `admitted` under `policy` (its decision, as `decide`
   * answered it): each rule's to the bucket that counted the request, while that bucket is
   * still counted, at most what it holds (quota-engine.ts, refundQuota). A refusal, a request
   * counted by a state since forgotten or kept for other windows, gets nothing back. Strikes,
   * a ban and its answer, and Retry-After stand.
   */
  refund(subject: string, policy: QuotaPolicy, units: RuleCosts, admitted: QuotaDecision, scope?: CallScope): void | Promise<void>;
}
