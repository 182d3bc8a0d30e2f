import { err, ok, type Result } from '../result.js';
import { largestLimitOf } from './decidable-policy.js';
import type { Plan } from './plan.js';
import type { PlanRule } from './plan-rules.js';
import { overrideOf, type RuleOverride, type RuleOverrides } from './rule-overrides.js';

/** A change of a key's overrides: rules to override (replacing what they had) and rules given back their plan's terms. */
export interface OverrideEdits {
  readonly set: RuleOverrides;
  readonly unset: readonly string[];
}

export const NO_OVERRIDE_EDITS: OverrideEdits = Object.freeze({ set: Object.freeze({}), unset: Object.freeze([]) });

/**
 * Where an override a problem names comes from: the change sets it, or unsets it, or the key had
 * it already and the change of plan is what no longer fits it.
 */
export type OverrideSource = 'set' | 'unset' | 'kept';

/** Why a key's overrides cannot be what a change would make them, each front end wording it in its own syntax. */
export type OverrideProblem =
  /** The plan has no rule of that name. */
  | { readonly kind: 'unknown_rule'; readonly rule: string; readonly source: OverrideSource; readonly plan: Plan }
  /** The limit is below the rule's largest cost (which could never be admitted) or above what a count holds. */
  | {
      readonly kind: 'limit_out_of_range';
      readonly rule: string;
      readonly source: Exclude<OverrideSource, 'unset'>;
      readonly limit: number;
      readonly min: number;
      readonly max: number;
      readonly plan: Plan;
    }
  /** Every rule over every request would be a shadow: no request would be limited, nor have a rule to advertise. */
  | { readonly kind: 'no_enforced_rule'; readonly plan: Plan };

/**
 * The smallest limit a key may give `rule`: its largest cost, as a plans file's limit is at least
 * its costs (a request costing more than the limit could never be admitted).
 */
export const smallestLimitOf = ({ cost }: PlanRule): number =>
  cost === undefined ? 1 : typeof cost === 'number' ? cost : Math.max(1, ...Object.values(cost));

const isWhole = (limit: number, min: number, max: number): boolean => Number.isInteger(limit) && limit >= min && limit <= max;

/**
 * The overrides a key on `plan` (its plan after the change) has once `edits` apply to those it
 * had (`current`), in the plan's order, or the first problem. Every one must name a rule of the
 * plan, with a limit from the rule's largest cost to its largest limit (largestLimitOf), and some rule without
 * `match` must stay enforced. A rule unset need not be overridden (nothing changes), but must be
 * the plan's or overridden: a misspelt name is refused, not ignored. Overrides the key had and
 * still fit are kept through a change of plan; one that no longer fits refuses the change.
 */
export function editOverrides(plan: Plan, current: RuleOverrides | undefined, { set, unset }: OverrideEdits): Result<RuleOverrides, OverrideProblem> {
  const ruleNamed = (name: string): PlanRule | undefined => plan.rules.find((rule) => rule.name === name);
  for (const rule of unset) {
    if (ruleNamed(rule) === undefined && overrideOf(current, rule) === undefined) return err({ kind: 'unknown_rule', rule, source: 'unset', plan });
  }
  // A map, not an object: a name such as `__proto__` must be refused as unknown, not set a prototype.
  const next = new Map<string, RuleOverride>();
  for (const [rule, override] of Object.entries(current ?? {})) if (!unset.includes(rule)) next.set(rule, override);
  for (const [rule, override] of Object.entries(set)) next.set(rule, override);
  for (const [name, { limit }] of next) {
    const source = Object.hasOwn(set, name) ? 'set' : 'kept';
    const rule = ruleNamed(name);
    if (rule === undefined) return err({ kind: 'unknown_rule', rule: name, source, plan });
    const min = smallestLimitOf(rule);
    const max = largestLimitOf(rule);
    if (!isWhole(limit, min, max)) return err({ kind: 'limit_out_of_range', rule: name, source, limit, min, max, plan });
  }
  const modeOf = (rule: PlanRule): string | undefined => next.get(rule.name)?.mode ?? rule.mode;
  if (!plan.rules.some((rule) => rule.match === undefined && modeOf(rule) !== 'shadow')) return err({ kind: 'no_enforced_rule', plan });
  const ordered = plan.rules.flatMap((rule) => {
    const override = next.get(rule.name);
    return override === undefined ? [] : [[rule.name, override] as const];
  });
  return ok(Object.freeze(Object.fromEntries(ordered)));
}
