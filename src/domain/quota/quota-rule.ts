/**
 * `enforce`: a request the rule has no room for is refused. `shadow`: decided and counted like
 * an enforced rule, never refuses; each would-be refusal is reported (QuotaDecision.shadowed).
 */
export const RULE_MODES = ['enforce', 'shadow'] as const;
export type RuleMode = (typeof RULE_MODES)[number];

/**
 * `window`: a sliding window, at most `limit` admitted units in any rolling `windowMs`.
 * `burst`: a token bucket (GCRA) of `limit` units that refills completely in `windowMs`, one
 * unit every windowMs / limit ms: a full bucket admits `limit` at once, then the refill rate.
 */
export const RULE_KINDS = ['window', 'burst'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/** One rule: a sliding window (the default) or a burst bucket, of `limit` units over `windowMs`. */
export interface QuotaRule {
  /** The name used in the IETF RateLimit fields: `minute`, `day`. */
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
  /** Default `window`. */
  readonly kind?: RuleKind;
  /** Default `enforce`. */
  readonly mode?: RuleMode;
}

/**
 * What one request spends under each rule of a policy, indexed like its rules: 0 where the
 * request does not match the rule (the rule neither decides nor counts it).
 */
export type RuleCosts = readonly number[];

/** Strikes are requests refused while a 429's Retry-After is still running. */
export interface BanPolicy {
  readonly strikes: number;
  readonly strikeWindowMs: number;
  readonly banMs: number;
}

/** Everything a quota store needs to decide one request of one subject. */
export interface QuotaPolicy {
  readonly rules: readonly QuotaRule[];
  /** Absent: the subject is never banned (anonymous callers are only limited). */
  readonly ban?: BanPolicy;
}
