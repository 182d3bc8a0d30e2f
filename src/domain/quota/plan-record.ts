import type { CreditRule } from '../credits/credit-rule.js';
import type { ConcurrencyRule } from './concurrency-rule.js';
import type { Plan } from './plan.js';
import type { PlanRule, RuleCost } from './plan-rules.js';
import { RULE_KINDS, RULE_MODES, type RuleKind, type RuleMode } from './quota-rule.js';
import { statusesOf } from './rule-refunds.js';

/**
 * A plan as stores keep it (a JSON object): its name, rules, concurrency cap and credits, nothing
 * else. A rule's kind, mode, match, cost and refund, the cap and the credits, are written only when
 * set, so a record of today's plans is what it always was.
 */
export interface PlanRecord {
  readonly name: string;
  readonly rules: PlanRule[];
  readonly concurrency?: ConcurrencyRule;
  readonly credits?: CreditRule;
}

const ruleRecord = ({ name, limit, windowMs, kind, mode, match, cost, refund }: PlanRule): PlanRule => ({
  name,
  limit,
  windowMs,
  ...(kind === undefined ? {} : { kind }),
  ...(mode === undefined ? {} : { mode }),
  ...(match === undefined ? {} : { match: [...match] }),
  ...(cost === undefined ? {} : { cost: typeof cost === 'number' ? cost : { ...cost } }),
  ...(refund === undefined ? {} : { refund: [...refund] }),
});

const capRecord = ({ name, limit, match }: ConcurrencyRule): ConcurrencyRule => ({ name, limit, ...(match === undefined ? {} : { match: [...match] }) });

const creditsRecord = ({ name, credits, initial, refill, match, cost, refund }: CreditRule): CreditRule => ({
  name,
  credits,
  ...(initial === undefined ? {} : { initial }),
  ...(refill === undefined ? {} : { refill }),
  ...(match === undefined ? {} : { match: [...match] }),
  ...(cost === undefined ? {} : { cost: typeof cost === 'number' ? cost : { ...cost } }),
  ...(refund === undefined ? {} : { refund: [...refund] }),
});

export const planRecord = ({ name, rules, concurrency, credits }: Plan): PlanRecord => ({
  name,
  rules: rules.map(ruleRecord),
  ...(concurrency === undefined ? {} : { concurrency: capRecord(concurrency) }),
  ...(credits === undefined ? {} : { credits: creditsRecord(credits) }),
});

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

const isMode = (value: unknown): value is RuleMode => RULE_MODES.some((mode) => mode === value);

const isKind = (value: unknown): value is RuleKind => RULE_KINDS.some((kind) => kind === value);

const isCost = (value: unknown): value is RuleCost =>
  typeof value === 'number' || (isObject(value) && Object.values(value).every((cost) => typeof cost === 'number'));

// Absent optional fields are absent in the rule read, so a record read back equals the plan written.
const ruleOf = (value: unknown): PlanRule | undefined => {
  if (!isObject(value)) return undefined;
  const { name, limit, windowMs, kind, mode, match, cost, refund } = value;
  if (typeof name !== 'string' || typeof limit !== 'number' || typeof windowMs !== 'number') return undefined;
  if (kind !== undefined && !isKind(kind)) return undefined;
  if (mode !== undefined && !isMode(mode)) return undefined;
  if (match !== undefined && !isStrings(match)) return undefined;
  if (cost !== undefined && !isCost(cost)) return undefined;
  if (refund !== undefined && !(isStrings(refund) && refund.every((answers) => statusesOf(answers).length > 0))) return undefined;
  return Object.freeze({
    name,
    limit,
    windowMs,
    ...(kind === undefined ? {} : { kind }),
    ...(mode === undefined ? {} : { mode }),
    ...(match === undefined ? {} : { match: Object.freeze([...match]) }),
    ...(cost === undefined ? {} : { cost: typeof cost === 'number' ? cost : Object.freeze({ ...cost }) }),
    ...(refund === undefined ? {} : { refund: Object.freeze([...refund]) }),
  });
};

const capOf = (value: unknown): ConcurrencyRule | undefined => {
  if (!isObject(value)) return undefined;
  const { name, limit, match } = value;
  if (typeof name !== 'string' || typeof limit !== 'number' || (match !== undefined && !isStrings(match))) return undefined;
  return Object.freeze({ name, limit, ...(match === undefined ? {} : { match: Object.freeze([...match]) }) });
};

const isWholeNumber = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);

const creditsOf = (value: unknown): CreditRule | undefined => {
  if (!isObject(value)) return undefined;
  const { name, credits, initial, refill, match, cost, refund } = value;
  if (typeof name !== 'string' || !isWholeNumber(credits) || (initial !== undefined && !isWholeNumber(initial))) return undefined;
  if (refill !== undefined && refill !== 'month' && !isWholeNumber(refill)) return undefined;
  if ((match !== undefined && !isStrings(match)) || (cost !== undefined && !isCost(cost))) return undefined;
  if (refund !== undefined && !(isStrings(refund) && refund.every((answers) => statusesOf(answers).length > 0))) return undefined;
  return Object.freeze({
    name,
    credits,
    ...(initial === undefined ? {} : { initial }),
    ...(refill === undefined ? {} : { refill }),
    ...(match === undefined ? {} : { match: Object.freeze([...match]) }),
    ...(cost === undefined ? {} : { cost: typeof cost === 'number' ? cost : Object.freeze({ ...cost }) }),
    ...(refund === undefined ? {} : { refund: Object.freeze([...refund]) }),
  });
};

/** The frozen plan a record holds; undefined when it is not one (a store tampered with). */
export const planOfRecord = (value: unknown): Plan | undefined => {
  if (!isObject(value)) return undefined;
  const { name, rules, concurrency, credits } = value;
  if (typeof name !== 'string' || name === '' || !Array.isArray(rules)) return undefined;
  const read = rules.map(ruleOf);
  if (!read.every((rule) => rule !== undefined)) return undefined;
  const cap = concurrency === undefined ? undefined : capOf(concurrency);
  const balance = credits === undefined ? undefined : creditsOf(credits);
  if ((concurrency !== undefined && cap === undefined) || (credits !== undefined && balance === undefined)) return undefined;
  return Object.freeze({
    name,
    rules: Object.freeze(read),
    ...(cap === undefined ? {} : { concurrency: cap }),
    ...(balance === undefined ? {} : { credits: balance }),
  });
};
