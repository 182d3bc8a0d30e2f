import type { QuotaDecision } from '../domain/quota/quota-decision.js';
import type { QuotaPolicy, RuleCosts } from '../domain/quota/quota-rule.js';

/**
 * Takes the strikes of refusals answered by a cache in front of a QuotaStore, so bans stay
 * shared: in one atomic step, each as the store would have counted it (a refusal while an
 * earlier Retry-After runs), possibly starting a ban.
 */
export interface StrikeRecorder {
  /**
   * `strikes`: the time and the told retryAt of each refusal, flat and in order
   * (`[at, retryAt, at, retryAt, ...]`, the store's clock). Resolves with the ban's decision
   * when the subject is banned once they are counted, else undefined.
   */
  recordStrikes(subject: string, policy: QuotaPolicy, strikes: readonly number[]): Promise<QuotaDecision | undefined>;
  /**
   * Decides one request of `cost` as the store's `decide` does, and with a refusal under a ban
   * rule also the subject's strikes after it: the times of the last ones (at most the ban's
   * count), oldest first, on the store's clock.
   */
  decideReportingStrikes(subject: string, policy: QuotaPolicy, cost?: number | RuleCosts): Promise<StrikesReported>;
}

export interface StrikesReported {
  readonly decision: QuotaDecision;
  /** Empty unless the decision is a refusal under a ban rule. */
  readonly strikes: readonly number[];
}
