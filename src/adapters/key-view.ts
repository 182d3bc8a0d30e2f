import { DAY_MS, isBuiltInPlan, MINUTE_MS } from '../domain/quota/plan.js';
import { ruleTermsOf } from '../domain/quota/plan-rules.js';
import { stateOf, type ManagedApiKey } from '../ports/api-key-registry.js';

/*
 * A managed key as operators see it, the one presentation of both front ends: the admin API
 * writes these views as its JSON (http/admin/admin-key-schemas.ts), `petstore keys` prints their
 * fields. Times are RFC 3339 UTC strings to the second, as an operator reads them; an absent
 * time is null.
 */

const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const isoOrNull = (ms: number | undefined): string | null => (ms === undefined ? null : isoSeconds(ms));
/** Rounded up, as X-RateLimit-Reset is: the second by which the rule's remaining has risen. */
const isoUpOrNull = (ms: number | undefined): string | null => (ms === undefined ? null : isoSeconds(Math.ceil(ms / 1_000) * 1_000));

const limitOf = (key: ManagedApiKey, windowMs: number): number | undefined => key.plan.rules.find((rule) => rule.windowMs === windowMs)?.limit;

/** A built-in plan's two numbers (enterprise keys set them); a plans file's plan has only its rules. */
const builtInLimits = (key: ManagedApiKey) => (isBuiltInPlan(key.plan.name) ? { perMinute: limitOf(key, MINUTE_MS), perDay: limitOf(key, DAY_MS) } : {});

export const keyView = (key: ManagedApiKey, now: number) => ({
  id: key.id,
  label: key.label,
  plan: key.plan.name,
  ...builtInLimits(key),
  rules: key.plan.rules.map((rule) => ({ name: rule.name, limit: rule.limit, windowMs: rule.windowMs, ...ruleTermsOf(rule) })),
  role: key.role,
  state: stateOf(key, now),
  createdAt: isoSeconds(key.createdAt),
  updatedAt: isoOrNull(key.updatedAt),
  expiresAt: isoOrNull(key.expiresAt),
  revokedAt: isoOrNull(key.revokedAt),
  rolledAt: isoOrNull(key.rolledAt),
  previousKeyUntil: isoOrNull(key.previousSecretUntil),
});

export type KeyView = ReturnType<typeof keyView>;

/** One rule of a key's plan as its requests would find it now; `used` unknown during a ban, `resetAt` absent when it counts nothing. */
export interface RuleStanding {
  readonly name: string;
  readonly limit: number;
  readonly used: number | undefined;
  readonly remaining: number;
  readonly resetAt: number | undefined;
}

/** A key and its quota as they stand. */
export interface KeyStanding {
  readonly key: ManagedApiKey;
  readonly rules: readonly RuleStanding[];
  /** The ban's end; absent: not banned. */
  readonly bannedUntil: number | undefined;
  /** The strikes that count towards a ban now; absent: not known. */
  readonly strikes: number | undefined;
}

export const standingView = ({ key, rules, bannedUntil, strikes }: KeyStanding, now: number) => ({
  key: keyView(key, now),
  rules: rules.map(({ name, limit, used, remaining, resetAt }) => ({ name, limit, used: used ?? null, remaining, resetAt: isoUpOrNull(resetAt) })),
  bannedUntil: isoUpOrNull(bannedUntil),
  strikes: strikes ?? null,
});

export type StandingView = ReturnType<typeof standingView>;
