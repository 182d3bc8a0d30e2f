/**
 * A plan's concurrency cap: at most `limit` requests of one key in flight at once, each holding
 * one slot from its admission until its answer is written or its client goes away. Kept beside
 * a plan's rules (Plan.concurrency), never among them: the rules are windows and buckets that
 * count spent units over time, indexed alike by every store, header and override; a slot is
 * held and given back, by another port (ConcurrencySlots).
 */
export interface ConcurrencyRule {
  /** Shown in the refusal's log line and in GET /rate_limit, like a rule's. */
  readonly name: string;
  readonly limit: number;
  /** The operationIds the cap applies to; absent: every request of the key, routed or not. */
  readonly match?: readonly string[];
}

/** The most slots a cap may hold: far above any server's sockets, so a larger number is a typo. */
export const MAX_CONCURRENCY = 100_000;

/** What a refusal by a cap tells the client to wait, in seconds: a slot is usually free again within a request's time. */
export const CONCURRENCY_RETRY_AFTER_S = 1;

/** Whether a request of `operationId` (undefined: no operation was routed) takes a slot of `rule`. */
export const capApplies = (rule: ConcurrencyRule, operationId: string | undefined): boolean =>
  rule.match === undefined || (operationId !== undefined && rule.match.includes(operationId));
