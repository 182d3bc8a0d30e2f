import type { QuotaDecision } from '../domain/quota/quota-decision.js';
import type { QuotaPolicy, RuleCosts } from '../domain/quota/quota-rule.js';

/**
 * Decides and records one request of `subject` in a single atomic step: every rule, the
 * strike and the ban, so no concurrent request can slip between a check and its count.
 * In-memory stores answer synchronously (no promise on the hot path); remote ones with a
 * promise, rejecting with StoreUnavailableError when the store cannot answer.
 */
export interface QuotaStore {
  /**
   * A request of `cost` units (default 1; an integer from 1 to the policy's smallest limit), or
   * of each rule's own (RuleCosts, 0 where the request does not match the rule): admitted only
   * if every enforced matched rule has room; every matched rule counts it.
   */
  decide(subject: string, policy: QuotaPolicy, cost?: number | RuleCosts): QuotaDecision | Promise<QuotaDecision>;
  /**
   * What a request of `cost` would be answered now, counting and striking nothing: `remaining`
   * is each rule's room before it, and `strikes` is set. A subject never seen has its whole quota.
   */
  peek(subject: string, policy: QuotaPolicy, cost?: number): QuotaDecision | Promise<QuotaDecision>;
  /** Forgets the subject: its counters, its strikes and any ban. */
  reset(subject: string): void | Promise<void>;
}
