import type { CreditRule } from '../credits/credit-rule.js';
import type { ConcurrencyRule } from './concurrency-rule.js';
import type { PlanRule } from './plan-rules.js';
import type { QuotaRule } from './quota-rule.js';

/** The built-in plans' names: always known, never redefined by a plans file. */
export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export const isBuiltInPlan = (name: string): name is PlanName => (PLAN_NAMES as readonly string[]).includes(name);

/** A plan: a name (built in, or one of the plans file's) and its rules, every one applying to each request it matches. */
export interface Plan {
  readonly name: string;
  readonly rules: readonly PlanRule[];
  /** Absent: the key's requests in flight are not capped. */
  readonly concurrency?: ConcurrencyRule;
  /** Absent: the key's requests spend no credits. */
  readonly credits?: CreditRule;
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** A plan's first rule, also the anonymous callers' only one: `limit` requests in any rolling minute. */
export const minuteRule = (limit: number): QuotaRule => ({ name: 'minute', limit, windowMs: MINUTE_MS });
export const dayRule = (limit: number): QuotaRule => ({ name: 'day', limit, windowMs: DAY_MS });

export const planOf = (name: PlanName, perMinute: number, perDay: number): Plan => ({
  name,
  rules: [minuteRule(perMinute), dayRule(perDay)],
});

/** The seed's plan table. Enterprise keys carry their own numbers. */
export const STANDARD_PLANS = {
  free: planOf('free', 60, 1_000),
  pro: planOf('pro', 300, 10_000),
  business: planOf('business', 1_000, 100_000),
} as const satisfies Record<Exclude<PlanName, 'enterprise'>, Plan>;

export const enterprisePlan = (perMinute: number, perDay: number): Plan => planOf('enterprise', perMinute, perDay);
