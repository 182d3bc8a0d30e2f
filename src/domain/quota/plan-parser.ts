import { err, ok, type Result } from '../result.js';
import { MAX_RULE_LIMIT } from './decidable-policy.js';
import { enterprisePlan, PLAN_NAMES, STANDARD_PLANS, type Plan } from './plan.js';

/** The plans of a plans file (PETSTORE_PLANS) by name, beside the built-in ones, none of which it redefines. */
export type PlanCatalog = ReadonlyMap<string, Plan>;

export const NO_FILE_PLANS: PlanCatalog = new Map();

/** Every plan a key may name, the built-in ones first: `free, pro, business, enterprise, search`. */
export const planNamesOf = (plans: PlanCatalog): string => [...PLAN_NAMES, ...plans.keys()].join(', ');

export type StandardPlanName = keyof typeof STANDARD_PLANS;

/** Why a plan could not be read; each front end (configuration, CLI) words it in its own syntax. */
export type PlanProblem =
  | { readonly kind: 'unknown_plan' }
  | { readonly kind: 'limits_not_allowed'; readonly plan: string }
  /** `limit` is absent or not plain decimal digits from 1. */
  | { readonly kind: 'limit_not_whole'; readonly limit: 'perMinute' | 'perDay' }
  | { readonly kind: 'limit_too_large'; readonly limit: 'perMinute' | 'perDay' };

export interface PlanText {
  readonly name: string | undefined;
  readonly perMinute?: string | undefined;
  readonly perDay?: string | undefined;
}

const isStandard = (name: string | undefined): name is StandardPlanName => name !== undefined && Object.hasOwn(STANDARD_PLANS, name);

// Refused here, once, rather than answered 500 on every request of the key.
const limitOf = (limit: 'perMinute' | 'perDay', text: string | undefined): Result<number, PlanProblem> => {
  if (text === undefined || !/^[0-9]{1,16}$/.test(text) || Number(text) < 1) return err({ kind: 'limit_not_whole', limit });
  const value = Number(text);
  return value <= MAX_RULE_LIMIT ? ok(value) : err({ kind: 'limit_too_large', limit });
};

/**
 * A plan named as an operator writes it: `free`, `pro`, `business`, one of the plans file's, or
 * `enterprise` with its two limits. The one reader of PETSTORE_API_KEYS entries, of `petstore
 * keys --plan` and of the admin API's `plan`.
 */
export function parsePlan({ name, perMinute, perDay }: PlanText, plans: PlanCatalog = NO_FILE_PLANS): Result<Plan, PlanProblem> {
  if (name === 'enterprise') {
    const minute = limitOf('perMinute', perMinute);
    if (!minute.ok) return minute;
    const day = limitOf('perDay', perDay);
    if (!day.ok) return day;
    return ok(enterprisePlan(minute.value, day.value));
  }
  const plan = isStandard(name) ? STANDARD_PLANS[name] : name === undefined ? undefined : plans.get(name);
  if (plan === undefined) return err({ kind: 'unknown_plan' });
  return perMinute === undefined && perDay === undefined ? ok(plan) : err({ kind: 'limits_not_allowed', plan: plan.name });
}
