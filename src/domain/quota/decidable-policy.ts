import { MAX_BAN_STRIKES } from './ban-policy.js';
import { bucketCapacity, isBurst } from './burst-bucket.js';
import { RULE_KINDS, type QuotaPolicy, type QuotaRule, type RuleCosts } from './quota-rule.js';
import { GRANULES_PER_WINDOW } from './sliding-window-counter.js';

/** Counts are 32-bit integers in every store: no rule may admit more within its window. */
export const MAX_RULE_LIMIT = 0xffff_ffff;

/** The largest limit `rule` can have: MAX_RULE_LIMIT, and for a burst rule a capacity (limit × windowMs) that stays an exact integer. */
export const largestLimitOf = (rule: QuotaRule): number =>
  isBurst(rule) ? Math.min(MAX_RULE_LIMIT, Math.floor(Number.MAX_SAFE_INTEGER / rule.windowMs)) : MAX_RULE_LIMIT;

/**
 * Throws on a policy no store can decide, a configuration mistake: granules of whole
 * milliseconds keep every time an exact integer, a limit of at least 1 always has a retry
 * time, and counts fit their 32 bits; a burst rule's level, whole unit-milliseconds up to its
 * capacity, stays an exact integer; a ban's strikes fit what a store keeps and reports.
 */
export const assertDecidablePolicy = ({ rules, ban }: QuotaPolicy): void => {
  for (const rule of rules) {
    const { name, limit, windowMs, kind } = rule;
    if (kind !== undefined && !RULE_KINDS.includes(kind)) throw new RangeError(`quota rule ${name}: kind must be one of ${RULE_KINDS.join(', ')}`);
    if (isBurst(rule)) {
      if (!Number.isSafeInteger(windowMs) || windowMs <= 0) throw new RangeError(`quota rule ${name}: windowMs must be a positive integer`);
    } else if (!Number.isSafeInteger(windowMs) || windowMs <= 0 || windowMs % GRANULES_PER_WINDOW !== 0) {
      throw new RangeError(`quota rule ${name}: windowMs must be a positive multiple of ${GRANULES_PER_WINDOW}`);
    }
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RULE_LIMIT) {
      throw new RangeError(`quota rule ${name}: limit must be an integer from 1 to ${MAX_RULE_LIMIT}`);
    }
    if (isBurst(rule) && !Number.isSafeInteger(bucketCapacity(rule))) {
      throw new RangeError(`quota rule ${name}: a burst rule's limit times its windowMs must be at most ${Number.MAX_SAFE_INTEGER}`);
    }
  }
  if (ban !== undefined && !(Number.isSafeInteger(ban.strikes) && ban.strikes >= 1 && ban.strikes <= MAX_BAN_STRIKES)) {
    throw new RangeError(`ban policy: strikes must be an integer from 1 to ${MAX_BAN_STRIKES}`);
  }
};

/** A request's cost under rule `i`: a single number is that cost under every rule. */
export const costUnder = (cost: number | RuleCosts, i: number): number => (typeof cost === 'number' ? cost : cost[i]!);

/**
 * Frozen costs already held to frozen rules, which nothing can change since: a plan's costs per
 * operation (request-admission.ts) are checked at their first decision, not at every one.
 */
const heldTo = new WeakMap<RuleCosts, readonly QuotaRule[]>();

/**
 * Throws on a cost no rule can weigh, a mistake of the caller: each rule's cost an integer
 * from 0 (the request does not match the rule) to its limit (more could never be admitted,
 * and would have no retry time), one per rule.
 */
export const assertRuleCosts = (rules: readonly QuotaRule[], cost: number | RuleCosts): void => {
  if (typeof cost !== 'number' && heldTo.get(cost) === rules) return;
  if (typeof cost !== 'number' && cost.length !== rules.length) {
    throw new RangeError(`quota costs: one per rule (${rules.length}), not ${cost.length}`);
  }
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    const units = costUnder(cost, i);
    if (!(Number.isInteger(units) && units >= 0 && units <= rule.limit)) {
      throw new RangeError(`quota rule ${rule.name}: cost must be an integer from 0 to its limit ${rule.limit}, not ${String(units)}`);
    }
  }
  if (typeof cost !== 'number' && Object.isFrozen(cost) && Object.isFrozen(rules) && rules.every(Object.isFrozen)) heldTo.set(cost, rules);
};
