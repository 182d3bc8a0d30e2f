import { PLAN_NAMES, type Plan, type PlanName } from './plan.js';
import type { QuotaRule } from './quota-rule.js';

/** A plan as stores keep it (a JSON object): its name and rules, nothing else. */
export interface PlanRecord {
  readonly name: PlanName;
  readonly rules: QuotaRule[];
}

export const planRecord = ({ name, rules }: Plan): PlanRecord => ({
  name,
  rules: rules.map(({ name: rule, limit, windowMs }) => ({ name: rule, limit, windowMs })),
});

const isPlanName = (value: unknown): value is PlanName => PLAN_NAMES.some((name) => name === value);

const isRule = (value: unknown): value is QuotaRule =>
  typeof value === 'object' &&
  value !== null &&
  'name' in value &&
  typeof value.name === 'string' &&
  'limit' in value &&
  typeof value.limit === 'number' &&
  'windowMs' in value &&
  typeof value.windowMs === 'number';

/** The frozen plan a record holds; undefined when it is not one (a store tampered with). */
export const planOfRecord = (value: unknown): Plan | undefined => {
  if (typeof value !== 'object' || value === null || !('name' in value) || !('rules' in value)) return undefined;
  const { name, rules } = value;
  if (!isPlanName(name) || !Array.isArray(rules) || !rules.every(isRule)) return undefined;
  return Object.freeze({ name, rules: Object.freeze(rules.map(({ name: rule, limit, windowMs }) => Object.freeze({ name: rule, limit, windowMs }))) });
};
