import type { Plan } from './plan.js';
import type { PlanRule } from './plan-rules.js';
import { RULE_MODES, type RuleMode } from './quota-rule.js';

/**
 * What one key changes of one rule of its plan: the limit, and the mode when given. The window,
 * the match and the cost stay the plan's, so the key's counters fit the rule whatever its
 * overrides, and changing them is a plan change of that key: what was counted stays counted.
 */
export interface RuleOverride {
  readonly limit: number;
  /** Absent: the plan's mode. */
  readonly mode?: RuleMode;
}

/** A key's overrides, by the name of the rule of its plan each changes. */
export type RuleOverrides = Readonly<Record<string, RuleOverride>>;

export const hasOverrides = (overrides: RuleOverrides | undefined): overrides is RuleOverrides =>
  overrides !== undefined && Object.keys(overrides).length > 0;

/** The override of the rule named `rule`, own keys only: a rule named `constructor` must not reach Object.prototype. */
export const overrideOf = (overrides: RuleOverrides | undefined, rule: string): RuleOverride | undefined =>
  overrides !== undefined && Object.hasOwn(overrides, rule) ? overrides[rule] : undefined;

const overridden = (rule: PlanRule, { limit, mode }: RuleOverride): PlanRule => Object.freeze({ ...rule, limit, ...(mode === undefined ? {} : { mode }) });

/**
 * The plan a key is decided under: `plan` with each of its rules that `overrides` names changed,
 * in the plan's order. The very `plan` object when nothing is overridden, so a key without
 * overrides shares its plan's memoized policy and costs, as it always did. An override naming
 * no rule of the plan changes nothing (the key verbs refuse to store one).
 */
export function withOverrides(plan: Plan, overrides: RuleOverrides | undefined): Plan {
  if (!hasOverrides(overrides) || !plan.rules.some((rule) => overrideOf(overrides, rule.name) !== undefined)) return plan;
  const rules = plan.rules.map((rule) => {
    const override = overrideOf(overrides, rule.name);
    return override === undefined ? rule : overridden(rule, override);
  });
  return Object.freeze({ ...plan, rules: Object.freeze(rules) });
}

/** A copy of `overrides` to store: a plain JSON object, a mode written only when set. */
export const overridesRecord = (overrides: RuleOverrides): Record<string, RuleOverride> =>
  Object.fromEntries(Object.entries(overrides).map(([rule, { limit, mode }]) => [rule, { limit, ...(mode === undefined ? {} : { mode }) }]));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const overrideOfRecord = (value: unknown): RuleOverride | undefined => {
  if (!isObject(value)) return undefined;
  const { limit, mode } = value;
  if (typeof limit !== 'number' || !(mode === undefined || RULE_MODES.some((known) => known === mode))) return undefined;
  return Object.freeze({ limit, ...(mode === undefined ? {} : { mode: mode as RuleMode }) });
};

/**
 * The frozen overrides a stored record holds: `null`, absent or `{}` are none (undefined, as a
 * key without overrides has none); `false` when it is not overrides at all (a store tampered with).
 */
export function overridesOfRecord(value: unknown): RuleOverrides | undefined | false {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return false;
  const read: [string, RuleOverride][] = [];
  for (const [rule, record] of Object.entries(value)) {
    const override = overrideOfRecord(record);
    if (override === undefined) return false;
    read.push([rule, override]);
  }
  return read.length === 0 ? undefined : Object.freeze(Object.fromEntries(read));
}
