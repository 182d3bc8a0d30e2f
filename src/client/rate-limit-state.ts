import { RATE_LIMIT_FIELD, RATE_LIMIT_POLICY_FIELD } from './field-names.js';
import { parseStructuredList } from './structured-list.js';

/** One quota rule as the last answer described it (draft-ietf-httpapi-ratelimit-headers). */
export interface RateLimitRule {
  /** The policy's name: `minute`, `day`. */
  readonly name: string;
  /** `r`: requests the rule still admits. */
  readonly remaining: number;
  /**
   * `t`: seconds until `remaining` next rises, counted from `receivedAt`. Not `reset`:
   * `rateLimitStatus()`'s `reset` is a Unix time, this a count of seconds, as the field sends it.
   */
  readonly resetSeconds: number;
  /** `q` of RateLimit-Policy: the rule's limit, when the answer carried the policy; `limit` as in `rateLimitStatus()`. */
  readonly limit: number | undefined;
  /** @deprecated The same value as `limit`, its former name (not enumerated, so not serialized). */
  readonly quota: number | undefined;
  /** `w` of RateLimit-Policy: the rule's window in seconds, when the answer carried the policy. */
  readonly windowSeconds: number | undefined;
}

/** The `RateLimit` and `RateLimit-Policy` fields of the last answer that carried them. */
export interface RateLimitState {
  readonly rules: readonly RateLimitRule[];
  /** When that answer arrived, in ms since the epoch: `resetSeconds` count from here. */
  readonly receivedAt: number;
}

/** `quota`, the former name of `limit`, as a getter off the enumerated fields: one value, and JSON and equality see `limit` alone. */
const withQuotaAlias = (rule: Omit<RateLimitRule, 'quota'>): RateLimitRule =>
  Object.defineProperty(rule, 'quota', {
    get(this: RateLimitRule) {
      return this.limit;
    },
    enumerable: false,
  }) as RateLimitRule;

/** The rate-limit state `headers` describe, or undefined when they carry no readable `RateLimit` field. */
export function readRateLimitState(headers: Headers, receivedAt: number): RateLimitState | undefined {
  const field = headers.get(RATE_LIMIT_FIELD);
  if (field === null) return undefined;
  const policies = new Map(parseStructuredList(headers.get(RATE_LIMIT_POLICY_FIELD) ?? '').map((policy) => [policy.name, policy.params]));
  const rules = parseStructuredList(field).flatMap(({ name, params }): RateLimitRule[] => {
    const remaining = params.get('r');
    if (remaining === undefined) return [];
    const policy = policies.get(name);
    return [withQuotaAlias({ name, remaining, resetSeconds: params.get('t') ?? 0, limit: policy?.get('q'), windowSeconds: policy?.get('w') })];
  });
  return rules.length === 0 ? undefined : { rules, receivedAt };
}
