import { costUnder } from './decidable-policy.js';
import type { PlanRule } from './plan-rules.js';
import type { RuleCosts } from './quota-rule.js';

/*
 * A rule's `refund`: the answers whose requests get their cost back under it, each an answer
 * class (`"5xx"`: statuses 500 to 599) or one status (`"404"`).
 */

/** An answer class or a status, as a regular expression's source (the OpenAPI document's too). */
export const ANSWER_CLASS_PATTERN = '^(?:[1-5]xx|[1-5][0-9]{2})$';
const ANSWER_CLASS = new RegExp(ANSWER_CLASS_PATTERN);

/** What an answer class is, as a plans file's mistake says it. */
export const ANSWER_CLASS_SHAPE = '"1xx" to "5xx", or a status from "100" to "599"';

/** The statuses `answerClass` stands for; empty when it is none (`"6xx"`, `"5XX"`, `"42"`). */
export const statusesOf = (answerClass: string): readonly number[] => {
  if (!ANSWER_CLASS.test(answerClass)) return [];
  if (!answerClass.endsWith('xx')) return [Number(answerClass)];
  const first = Number(answerClass[0]) * 100;
  return Array.from({ length: 100 }, (_, i) => first + i);
};

/**
 * The statuses each rule of a plan refunds, indexed like its rules (undefined: the rule has no
 * `refund`); undefined when no rule refunds, so a plan without refunds carries nothing.
 */
export type PlanRefunds = readonly (ReadonlySet<number> | undefined)[];

/** The statuses a `refund` list stands for. */
export const refundedStatusesOf = (refund: readonly string[]): ReadonlySet<number> => new Set(refund.flatMap(statusesOf));

export const planRefundsOf = (rules: readonly PlanRule[]): PlanRefunds | undefined => {
  if (rules.every((rule) => rule.refund === undefined)) return undefined;
  return Object.freeze(rules.map((rule) => (rule.refund === undefined ? undefined : refundedStatusesOf(rule.refund))));
};

/**
 * What a request that spent `costs` gets back once answered `status`: its cost under each rule
 * refunding that status, 0 under the others; undefined when that is nothing.
 */
export const refundUnits = (refunds: PlanRefunds, costs: number | RuleCosts, status: number): RuleCosts | undefined => {
  let units: number[] | undefined;
  for (let i = 0; i < refunds.length; i++) {
    const cost = costUnder(costs, i);
    if (cost === 0 || refunds[i]?.has(status) !== true) continue;
    units ??= new Array<number>(refunds.length).fill(0);
    units[i] = cost;
  }
  return units;
};
