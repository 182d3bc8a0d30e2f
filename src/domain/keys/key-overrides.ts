import { MAX_RULE_LIMIT } from '../quota/decidable-policy.js';
import type { OverrideEdits, OverrideProblem } from '../quota/override-edits.js';
import { RULE_MODES, type RuleMode } from '../quota/quota-rule.js';
import type { RuleOverride, RuleOverrides } from '../quota/rule-overrides.js';
import { err, ok, type Result } from '../result.js';

/*
 * A key's overrides as operators write them: `--limit RULE=N[:MODE]` and `--unset-limit RULE` on
 * the command line, `"overrides": {"RULE": {"limit": N, "mode": MODE} | null}` in the admin API's
 * JSON. Each syntax is read here into the same OverrideEdits, checked against the key's plan by
 * editOverrides, and its problems worded back in the syntax they were given in.
 */

/** How a front end writes setting and unsetting one rule's override, to word a problem in its syntax. */
export interface OverrideSyntax {
  /** `--limit search=N`, `overrides.search.limit`. */
  limit(rule: string): string;
  /** `--unset-limit search`, `"overrides": {"search": null}`. */
  unset(rule: string): string;
}

const LIMIT_RANGE = `a whole number from 1 to ${MAX_RULE_LIMIT}`;
const MODES = RULE_MODES.join(' or ');
const modeOf = (text: string): RuleMode | undefined => RULE_MODES.find((mode) => mode === text);
const wholeLimit = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_RULE_LIMIT;

/** A key's overrides as `--limit` values are written, `search=60,burst=5:shadow`; `none` when it has none: what the change log records. */
export const overridesText = (overrides: RuleOverrides): string =>
  Object.entries(overrides)
    .map(([rule, { limit, mode }]) => `${rule}=${limit}${mode === undefined ? '' : `:${mode}`}`)
    .join(',') || 'none';

/** `RULE=N` or `RULE=N:MODE`. */
const LIMIT_FLAG = /^([^=]+)=([0-9]{1,10})(?::(.*))?$/;

/**
 * The `--limit` and `--unset-limit` values of one command line (each flag repeatable); undefined
 * when neither is given. `flag(name)` writes a flag as the command does.
 */
export function readLimitFlags(limits: readonly string[], unsets: readonly string[], flag: (name: 'limit' | 'unset-limit') => string): Result<OverrideEdits | undefined, string> {
  if (limits.length === 0 && unsets.length === 0) return ok(undefined);
  const set: Record<string, RuleOverride> = {};
  for (const text of limits) {
    const match = LIMIT_FLAG.exec(text);
    if (match === null) return err(`${flag('limit')} ${JSON.stringify(text)}: expected RULE=N or RULE=N:MODE (search=60, burst=5:shadow)`);
    const [, rule = '', digits = '', modeText] = match;
    const limit = Number(digits);
    if (!wholeLimit(limit)) return err(`${flag('limit')} ${text}: N must be ${LIMIT_RANGE}`);
    const mode = modeText === undefined ? undefined : modeOf(modeText);
    if (modeText !== undefined && mode === undefined) return err(`${flag('limit')} ${text}: the mode must be ${MODES}`);
    if (Object.hasOwn(set, rule)) return err(`${flag('limit')} names ${rule} twice`);
    Object.defineProperty(set, rule, { value: Object.freeze({ limit, ...(mode === undefined ? {} : { mode }) }), enumerable: true });
  }
  const both = unsets.find((rule) => Object.hasOwn(set, rule));
  if (both !== undefined) return err(`${both} is given to both ${flag('limit')} and ${flag('unset-limit')}`);
  return ok({ set: Object.freeze(set), unset: Object.freeze([...new Set(unsets)]) });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The admin API's `overrides`: an object of rule names, each `{"limit": N}` or `{"limit": N,
 * "mode": MODE}`, or `null` to give the rule back its plan's terms (`unsets`: PATCH only; a new
 * key has nothing to unset).
 */
export function readOverridesJson(value: unknown, unsets: boolean): Result<OverrideEdits, string> {
  if (!isObject(value)) return err('overrides must be an object of rule names: {"search": {"limit": 60}}');
  const set: Record<string, RuleOverride> = {};
  const unset: string[] = [];
  for (const [rule, given] of Object.entries(value)) {
    const at = `overrides.${rule}`;
    if (given === null) {
      if (!unsets) return err(`${at}: null removes an override, and a new key has none`);
      unset.push(rule);
      continue;
    }
    if (!isObject(given)) return err(`${at} must be {"limit": N}, {"limit": N, "mode": "shadow"}${unsets ? ', or null to remove it' : ''}`);
    const unknown = Object.keys(given).find((field) => field !== 'limit' && field !== 'mode');
    if (unknown !== undefined) return err(`${at}: unknown field ${JSON.stringify(unknown)}; an override has limit and mode`);
    const { limit, mode } = given;
    if (!wholeLimit(limit)) return err(`${at}.limit must be ${LIMIT_RANGE}`);
    const read = mode === undefined ? undefined : typeof mode === 'string' ? modeOf(mode) : undefined;
    if (mode !== undefined && read === undefined) return err(`${at}.mode must be ${MODES}`);
    Object.defineProperty(set, rule, { value: Object.freeze({ limit, ...(read === undefined ? {} : { mode: read }) }), enumerable: true });
  }
  return ok({ set: Object.freeze(set), unset: Object.freeze(unset) });
}

/** A problem editOverrides found, in the syntax of the front end that was given the edits. */
export function overrideProblemText(problem: OverrideProblem, syntax: OverrideSyntax): string {
  const { plan } = problem;
  switch (problem.kind) {
    case 'unknown_rule': {
      const rules = `its rules: ${plan.rules.map((rule) => rule.name).join(', ')}`;
      if (problem.source === 'kept') {
        return `the key overrides ${problem.rule}, which plan ${plan.name} has no rule of (${rules}): give ${syntax.unset(problem.rule)} with the change of plan`;
      }
      const given = problem.source === 'set' ? syntax.limit(problem.rule) : syntax.unset(problem.rule);
      return `${given}: plan ${plan.name} has no rule ${problem.rule} (${rules})`;
    }
    case 'limit_out_of_range': {
      const range = `${syntax.limit(problem.rule)} must be a whole number from ${problem.min} to ${problem.max}${problem.min > 1 ? `, the rule's largest cost being ${problem.min}` : ''}`;
      return problem.source === 'set'
        ? range
        : `the key overrides ${problem.rule} with ${problem.limit}, which plan ${plan.name}'s rule cannot take (${range}): set it again, or give ${syntax.unset(problem.rule)}, with the change of plan`;
    }
    case 'no_enforced_rule': {
      const everyRequest = plan.rules.filter((rule) => rule.match === undefined).map((rule) => rule.name);
      const keep = everyRequest.length === 1 ? everyRequest[0] : `one of ${everyRequest.join(', ')}`;
      return `the overrides would leave plan ${plan.name} no enforced rule over every request: keep ${keep} enforced`;
    }
  }
}
