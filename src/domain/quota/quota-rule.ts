/** One sliding-window rule: at most `limit` admitted requests in any rolling `windowMs`. */
export interface QuotaRule {
  /** The name used in the IETF RateLimit fields: `minute`, `day`. */
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

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
