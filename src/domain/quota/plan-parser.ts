import { err, ok, type Result } from '../result.js';
import { MAX_RULE_LIMIT } from './decidable-policy.js';
import { enterprisePlan, STANDARD_PLANS, type Plan } from './plan.js';

export type StandardPlanName = keyof typeof STANDARD_PLANS;

/** Why a plan could not be read; each front end (configuration, CLI) words it in its own syntax. */
export type PlanProblem =
  | { readonly kind: 'unknown_plan' }
  | { readonly kind: 'limits_not_allowed'; readonly plan: StandardPlanName }
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
 * A plan named as an operator writes it: `free`, `pro`, `business`, or `enterprise` with its
 * two limits. The one reader of PETSTORE_API_KEYS entries and of `petstore keys --plan`.
 */
export function parsePlan({ name, perMinute, perDay }: PlanText): Result<Plan, PlanProblem> {
  if (name === 'enterprise') {
    const minute = limitOf('perMinute', perMinute);
    if (!minute.ok) return minute;
    const day = limitOf('perDay', perDay);
    if (!day.ok) return day;
    return ok(enterprisePlan(minute.value, day.value));
  }
  if (!isStandard(name)) return err({ kind: 'unknown_plan' });
  return perMinute === undefined && perDay === undefined ? ok(STANDARD_PLANS[name]) : err({ kind: 'limits_not_allowed', plan: name });
}
