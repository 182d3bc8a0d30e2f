import { bindingRuleIndex } from '../../domain/quota/binding-rule.js';
import type { QuotaDecision } from '../../domain/quota/quota-decision.js';
import type { QuotaPolicy } from '../../domain/quota/quota-rule.js';
import type { HeaderList } from './request-context.js';

const policyFields = new WeakMap<QuotaPolicy, string>();

/** `"minute";q=60;w=60, "day";q=1000;w=86400` (draft-ietf-httpapi-ratelimit-headers-11), built once per policy. */
function policyField(policy: QuotaPolicy): string {
  let field = policyFields.get(policy);
  if (field === undefined) {
    field = policy.rules.map((rule) => `"${rule.name}";q=${rule.limit};w=${rule.windowMs / 1000}`).join(', ');
    policyFields.set(policy, field);
  }
  return field;
}

const secondsUntil = (at: number, now: number): number => Math.max(0, Math.ceil((at - now) / 1000));

/** Appends the legacy X-RateLimit-* trio of the binding rule and the IETF fields of every rule. */
export function writeRateLimitHeaders(headers: HeaderList, policy: QuotaPolicy, decision: QuotaDecision): void {
  const rules = policy.rules;
  const binding = bindingRuleIndex(decision, rules);
  const now = decision.decidedAt;
  let field = '';
  for (let i = 0; i < rules.length; i++) {
    if (i > 0) field += ', ';
    field += `"${rules[i]?.name}";r=${decision.remaining[i] ?? 0};t=${secondsUntil(decision.resetAt[i] ?? now, now)}`;
  }
  headers.push(
    'x-ratelimit-limit',
    rules[binding]?.limit ?? 0,
    'x-ratelimit-remaining',
    decision.remaining[binding] ?? 0,
    'x-ratelimit-reset',
    Math.ceil((decision.resetAt[binding] ?? now) / 1000),
    'ratelimit-policy',
    policyField(policy),
    'ratelimit',
    field,
  );
  if (decision.verdict !== 'admitted') headers.push('retry-after', retryAfterSeconds(decision));
}

/** Whole seconds, rounded up, at least 1: a client retrying then is admitted if nothing else spent the quota. */
export const retryAfterSeconds = (decision: QuotaDecision): number =>
  Math.max(1, Math.ceil((decision.retryAt - decision.decidedAt) / 1000));
