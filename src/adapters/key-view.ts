import { DAY_MS, isBuiltInPlan, MINUTE_MS, type Plan } from '../domain/quota/plan.js';
import { ruleTermsOf, type PlanRule } from '../domain/quota/plan-rules.js';
import { overrideOf, withOverrides } from '../domain/quota/rule-overrides.js';
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

const limitOf = (plan: Plan, windowMs: number): number | undefined => plan.rules.find((rule) => rule.windowMs === windowMs)?.limit;

/** A built-in plan's two numbers, as the key's requests are decided (enterprise keys set them); a plans file's plan has only its rules. */
const builtInLimits = (plan: Plan) => (isBuiltInPlan(plan.name) ? { perMinute: limitOf(plan, MINUTE_MS), perDay: limitOf(plan, DAY_MS) } : {});

/** A rule the key overrides carries the plan's own terms, which the key's replace. */
const overriddenOf = (key: ManagedApiKey, { name, limit, mode }: PlanRule) =>
  overrideOf(key.overrides, name) === undefined ? {} : { overridden: { limit, mode: mode ?? 'enforce' } };

/** The key's rules as its requests are decided: its plan's, its overrides applied and marked. */
const rulesOf = (key: ManagedApiKey, effective: Plan) =>
  effective.rules.map((rule, index) => ({
    name: rule.name,
    limit: rule.limit,
    windowMs: rule.windowMs,
    ...ruleTermsOf(rule),
    ...overriddenOf(key, key.plan.rules[index] ?? rule),
  }));

export const keyView = (key: ManagedApiKey, now: number) => {
  const effective = withOverrides(key.plan, key.overrides);
  return {
    id: key.id,
    label: key.label,
    plan: key.plan.name,
    ...builtInLimits(effective),
    rules: rulesOf(key, effective),
    role: key.role,
    state: stateOf(key, now),
    createdAt: isoSeconds(key.createdAt),
    updatedAt: isoOrNull(key.updatedAt),
    expiresAt: isoOrNull(key.expiresAt),
    revokedAt: isoOrNull(key.revokedAt),
    rolledAt: isoOrNull(key.rolledAt),
    previousKeyUntil: isoOrNull(key.previousSecretUntil),
  };
};

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
