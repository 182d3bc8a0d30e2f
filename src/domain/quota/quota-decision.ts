export type QuotaVerdict = 'admitted' | 'rate_limited' | 'banned';

/**
 * The outcome of one request against a policy. Arrays are indexed like `policy.rules`.
 * Times are epoch milliseconds of the store's clock.
 */
export interface QuotaDecision {
  readonly verdict: QuotaVerdict;
  /** When the store decided; header deltas are measured from here. */
  readonly decidedAt: number;
  /** What the next requests can still get under each rule, after this one. */
  readonly remaining: readonly number[];
  /**
   * When each rule's remaining next rises; `decidedAt` when the rule counts nothing. Banned:
   * the ban's end, or later for a rule still spent then.
   */
  readonly resetAt: readonly number[];
  /** Not admitted: the earliest time a request is admitted again if nothing else spends quota. */
  readonly retryAt: number;
  /**
   * A peek's only: the subject's strikes that would still count towards a ban at `decidedAt`,
   * those within the ban policy's strike window (0 without a ban rule). 0 during a ban: the
   * strikes that earned it are spent on it, and nothing strikes during one. Absent from
   * `decide`'s answers, so the hot path counts nothing, and from a blind admission while the
   * store is down.
   */
  readonly strikes?: number;
  /** The shadow rules (their indices) that had no room for the request: it would have been refused by them. Absent: none. */
  readonly shadowed?: readonly number[];
  /**
   * Admitted: when the store counted the request, where it differs from `decidedAt` (a clock
   * that stepped back keeps counting at the latest time counted to); what a refund names.
   */
  readonly countedAt?: number;
}

/** When the store counted the request `decision` admitted (its clock); undefined for a refusal, which counted nothing. */
export const countedAtOf = (decision: QuotaDecision): number | undefined =>
  decision.verdict === 'admitted' ? (decision.countedAt ?? decision.decidedAt) : undefined;
