import type { QuotaDecision } from '../../../domain/quota/quota-decision.js';
import type { QuotaPolicy } from '../../../domain/quota/quota-rule.js';
import { rateLimitFields } from '../../../domain/quota/rate-limit-fields.js';
import type { HeaderList } from './request-context.js';

/** Appends the legacy X-RateLimit-* trio of the binding rule, the IETF fields of every rule and, refused, Retry-After. */
export function writeRateLimitHeaders(headers: HeaderList, policy: QuotaPolicy, decision: QuotaDecision): void {
  const fields = rateLimitFields(policy, decision);
  headers.push(
    'x-ratelimit-limit',
    fields.limit,
    'x-ratelimit-remaining',
    fields.remaining,
    'x-ratelimit-reset',
    fields.reset,
    'ratelimit-policy',
    fields.policy,
    'ratelimit',
    fields.rateLimit,
  );
  if (fields.retryAfter !== undefined) headers.push('retry-after', fields.retryAfter);
}
