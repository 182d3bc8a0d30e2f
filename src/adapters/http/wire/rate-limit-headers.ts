import type { QuotaDecision } from '../../../domain/quota/quota-decision.js';
import type { QuotaPolicy, RuleCosts } from '../../../domain/quota/quota-rule.js';
import { RATE_LIMIT_FIELD_NAMES, rateLimitFields, type RateLimitFields } from '../../../domain/quota/rate-limit-fields.js';
import type { HeaderList } from './request-context.js';

// Lower case, as node:http writes the names it is handed, once at load rather than per answer.
const LIMIT = RATE_LIMIT_FIELD_NAMES.limit.toLowerCase();
const REMAINING = RATE_LIMIT_FIELD_NAMES.remaining.toLowerCase();
const RESET = RATE_LIMIT_FIELD_NAMES.reset.toLowerCase();
const POLICY = RATE_LIMIT_FIELD_NAMES.policy.toLowerCase();
const RATE_LIMIT = RATE_LIMIT_FIELD_NAMES.rateLimit.toLowerCase();
const RETRY_AFTER = RATE_LIMIT_FIELD_NAMES.retryAfter.toLowerCase();

/** A ban's fields last written, and what they were written of. */
interface Written {
  readonly policy: QuotaPolicy;
  readonly costs: number | RuleCosts;
  readonly decision: QuotaDecision;
  readonly fields: RateLimitFields;
}
let lastBan: Written | undefined;

/**
 * The fields of `decision`. A ban's answers share its arrays (remaining, resetAt): a flood of a
 * banned key's requests decided within one millisecond is answered with the fields written for
 * its first, since nothing they are made of differs. Any other decision is formatted.
 */
const fieldsOf = (policy: QuotaPolicy, decision: QuotaDecision, costs: number | RuleCosts): RateLimitFields => {
  if (decision.verdict !== 'banned') return rateLimitFields(policy, decision, costs);
  const held = lastBan;
  if (
    held !== undefined &&
    held.policy === policy &&
    held.costs === costs &&
    held.decision.remaining === decision.remaining &&
    held.decision.resetAt === decision.resetAt &&
    held.decision.decidedAt === decision.decidedAt &&
    held.decision.retryAt === decision.retryAt
  ) {
    return held.fields;
  }
  const fields = rateLimitFields(policy, decision, costs);
  lastBan = { policy, costs, decision, fields };
  return fields;
};

/**
 * Appends the legacy X-RateLimit-* trio of the binding rule and the IETF fields of every
 * enforced rule the request matched (it spent `costs`), and Retry-After when it was refused.
 */
export function writeRateLimitHeaders(headers: HeaderList, policy: QuotaPolicy, decision: QuotaDecision, costs: number | RuleCosts = 1): void {
  const fields = fieldsOf(policy, decision, costs);
  headers.push(LIMIT, fields.limit, REMAINING, fields.remaining, RESET, fields.reset, POLICY, fields.policy, RATE_LIMIT, fields.rateLimit);
  if (fields.retryAfter !== undefined) headers.push(RETRY_AFTER, fields.retryAfter);
}
