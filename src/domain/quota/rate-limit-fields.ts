import { bindingRuleIndex, isAdvertised } from './binding-rule.js';
import type { QuotaDecision } from './quota-decision.js';
import type { QuotaPolicy, QuotaRule, RuleCosts } from './quota-rule.js';

/**
 * The values of the rate-limit header fields of one decision, formatted once for every
 * transport: the node:http server pushes them onto its header list, the embeddable limiter
 * hands them out as a record.
 */
export interface RateLimitFields {
  /** `X-RateLimit-Limit`: the binding rule's limit (fewest remaining, the shorter window on a tie). */
  readonly limit: number;
  /** `X-RateLimit-Remaining`: what the binding rule still admits after this request. */
  readonly remaining: number;
  /** `X-RateLimit-Reset`: the Unix second, rounded up, at which the binding rule's remaining next rises. */
  readonly reset: number;
  /** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11): `"minute";q=60;w=60, "day";q=1000;w=86400`. */
  readonly policy: string;
  /** `RateLimit`: `"minute";r=59;t=60, "day";r=999;t=86400`, every rule's remaining and seconds to its reset. */
  readonly rateLimit: string;
  /** `Retry-After` in whole seconds, at least 1, when the request was refused; undefined when admitted. */
  readonly retryAfter: number | undefined;
}

/**
 * A rule's window in whole seconds, rounded up (RateLimit-Policy's `w` is an integer): a window
 * rule's rolling window, a burst rule's time to refill completely.
 */
export const windowSeconds = (rule: QuotaRule): number => Math.ceil(rule.windowMs / 1000);

// Keyed by the policy (a request of 1 under every rule) or by the RuleCosts an admission keeps
// per plan and operation, so each field is built once.
const policyFields = new WeakMap<QuotaPolicy | RuleCosts, string>();

/**
 * The `RateLimit-Policy` field of `policy` for a request that spent `costs` (default: 1 under
 * every rule): the enforced rules that request matched.
 */
export const rateLimitPolicyField = (policy: QuotaPolicy, costs: number | RuleCosts = 1): string => {
  const key = typeof costs === 'number' ? policy : costs;
  let field = policyFields.get(key);
  if (field === undefined) {
    field = policy.rules
      .filter((_rule, i) => isAdvertised(policy.rules, costs, i))
      .map((rule) => `"${rule.name}";q=${rule.limit};w=${windowSeconds(rule)}`)
      .join(', ');
    policyFields.set(key, field);
  }
  return field;
};

const secondsUntil = (at: number, now: number): number => Math.max(0, Math.ceil((at - now) / 1000));

/** Whole seconds, rounded up, at least 1: a client retrying then is admitted if nothing else spent the quota. */
const retryAfterSeconds = (decision: QuotaDecision): number =>
  Math.max(1, Math.ceil((decision.retryAt - decision.decidedAt) / 1000));

/**
 * The rate-limit fields of `decision`, taken under `policy` for a request that spent `costs`
 * (default: 1 under every rule); deltas are measured from `decision.decidedAt`. Only the
 * enforced rules the request matched are advertised, the binding one of them in X-RateLimit-*.
 */
export const rateLimitFields = (policy: QuotaPolicy, decision: QuotaDecision, costs: number | RuleCosts = 1): RateLimitFields => {
  const rules = policy.rules;
  const binding = bindingRuleIndex(decision, rules, costs);
  const now = decision.decidedAt;
  let rateLimit = '';
  for (let i = 0; i < rules.length; i++) {
    if (!isAdvertised(rules, costs, i)) continue;
    if (rateLimit !== '') rateLimit += ', ';
    rateLimit += `"${rules[i]?.name}";r=${decision.remaining[i] ?? 0};t=${secondsUntil(decision.resetAt[i] ?? now, now)}`;
  }
  return {
    limit: rules[binding]?.limit ?? 0,
    remaining: decision.remaining[binding] ?? 0,
    reset: Math.ceil((decision.resetAt[binding] ?? now) / 1000),
    policy: rateLimitPolicyField(policy, costs),
    rateLimit,
    retryAfter: decision.verdict === 'admitted' ? undefined : retryAfterSeconds(decision),
  };
};

/** The name of each field on the wire: the one table the writers, CORS and the OpenAPI document derive from. */
export const RATE_LIMIT_FIELD_NAMES = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
  policy: 'RateLimit-Policy',
  rateLimit: 'RateLimit',
  retryAfter: 'Retry-After',
} as const satisfies Record<keyof RateLimitFields, string>;

type FieldName<Field extends keyof RateLimitFields> = (typeof RATE_LIMIT_FIELD_NAMES)[Field];

/** The header fields as a record, values as strings, for `res.set(...)` (express) or `reply.headers(...)` (fastify). */
export type RateLimitHeaders = { readonly [Field in Exclude<keyof RateLimitFields, 'retryAfter'> as FieldName<Field>]: string } & {
  /** Only on a refusal (`rate_limited` or `banned`). */
  readonly [RATE_LIMIT_FIELD_NAMES.retryAfter]?: string;
};

/** `fields` as header fields; `Retry-After` only when the request was refused. */
export const rateLimitHeaders = (fields: RateLimitFields): RateLimitHeaders => {
  const headers: { -readonly [Name in keyof RateLimitHeaders]: RateLimitHeaders[Name] } = {
    [RATE_LIMIT_FIELD_NAMES.limit]: String(fields.limit),
    [RATE_LIMIT_FIELD_NAMES.remaining]: String(fields.remaining),
    [RATE_LIMIT_FIELD_NAMES.reset]: String(fields.reset),
    [RATE_LIMIT_FIELD_NAMES.policy]: fields.policy,
    [RATE_LIMIT_FIELD_NAMES.rateLimit]: fields.rateLimit,
  };
  if (fields.retryAfter !== undefined) headers[RATE_LIMIT_FIELD_NAMES.retryAfter] = String(fields.retryAfter);
  return headers;
};
