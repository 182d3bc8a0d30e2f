import type { QuotaRule, RuleCosts } from './quota-rule.js';

/**
 * What one matched request spends under a rule: one number for every operation, or a number
 * per operationId with a `default` for the others (1 when absent).
 */
export type RuleCost = number | Readonly<Record<string, number>>;

/**
 * A plan's or a rule's name, as a regular expression's source without anchors: written in key
 * entries, header fields, metrics labels and log lines as it is.
 */
export const PLAN_NAME_PATTERN = '[a-z][a-z0-9_-]{0,31}';

/** The key of a per-operation cost that stands for every operation it does not name. */
export const DEFAULT_COST_KEY = 'default';

/** A plan's rule: a sliding window or a burst bucket (QuotaRule), the operations it applies to, what each spends and what it gives back. */
export interface PlanRule extends QuotaRule {
  /** The operationIds the rule applies to; absent: every request, routed or not. */
  readonly match?: readonly string[];
  /** Absent: 1 for every matched request. */
  readonly cost?: RuleCost;
  /**
   * The answers whose requests get their cost under the rule back, each an answer class
   * (`"5xx"`) or a status (`"404"`): rule-refunds.ts. Absent: every admitted request keeps its cost.
   */
  readonly refund?: readonly string[];
}

/** What a rule counts and how, as the service shows it: its mode always, `kind` for a burst rule, `match`, `cost` and `refund` when set. */
export const ruleTermsOf = (rule: PlanRule) => ({
  ...(rule.kind === 'burst' ? { kind: rule.kind } : {}),
  mode: rule.mode ?? 'enforce',
  ...(rule.match === undefined ? {} : { match: [...rule.match] }),
  ...(rule.cost === undefined ? {} : { cost: rule.cost }),
  ...(rule.refund === undefined ? {} : { refund: [...rule.refund] }),
});

/** The units a request of `operationId` (undefined: no operation was routed) spends under `rule` (a plan's, or its credits); 0 when it does not match. */
export const ruleCostOf = (rule: Pick<PlanRule, 'match' | 'cost'>, operationId: string | undefined): number => {
  if (rule.match !== undefined && (operationId === undefined || !rule.match.includes(operationId))) return 0;
  const { cost } = rule;
  if (cost === undefined || typeof cost === 'number') return cost ?? 1;
  // Own keys only: an operationId such as `constructor` must not reach Object.prototype.
  if (operationId !== undefined && operationId !== DEFAULT_COST_KEY && Object.hasOwn(cost, operationId)) return cost[operationId]!;
  return Object.hasOwn(cost, DEFAULT_COST_KEY) ? cost[DEFAULT_COST_KEY]! : 1;
};

/**
 * What a request of `operationId` spends under each rule of `plan`, indexed like its rules (0:
 * the rule does not match). Allocates: callers keep the answer per plan and operation.
 */
export const costsOf = (plan: { readonly rules: readonly PlanRule[] }, operationId: string | undefined): RuleCosts =>
  Object.freeze(plan.rules.map((rule) => ruleCostOf(rule, operationId)));

/** True when every rule matches every request at cost 1 and none is a shadow: today's plans, decided with the plain cost 1. */
export const isUniformPlan = (plan: { readonly rules: readonly PlanRule[] }): boolean =>
  plan.rules.every((rule) => rule.match === undefined && (rule.cost === undefined || rule.cost === 1) && rule.mode !== 'shadow');
