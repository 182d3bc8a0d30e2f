import type { QuotaRule } from './quota-rule.js';

/*
 * A burst rule (GCRA) as a virtual level of whole unit-milliseconds, so every number is an
 * exact integer in a double, here and in Redis's Lua (lua/quota.lua does the same arithmetic):
 * a unit adds `windowMs` to the level, the level drains by `limit` every millisecond, and the
 * bucket holds `limit * windowMs` (assertDecidablePolicy keeps that below 2^53). A request of
 * `cost` fits while the level is at most the capacity less `cost * windowMs`. Every function
 * takes the level at `at`, the latest time it was advanced to.
 */

export const isBurst = (rule: QuotaRule): boolean => rule.kind === 'burst';

/** What a full bucket holds, in unit-milliseconds. */
export const bucketCapacity = (rule: QuotaRule): number => rule.limit * rule.windowMs;

/**
 * Only a shadow rule's level passes the capacity (it counts what it has no room for); it stops
 * here, so that every number stays exact.
 */
export const MAX_BURST_LEVEL = Number.MAX_SAFE_INTEGER;

/** The level `elapsed` ms later. Compared first: `elapsed * limit` is only worked out below the level. */
export const drainedLevel = (level: number, elapsed: number, limit: number): number =>
  elapsed >= Math.ceil(level / limit) ? 0 : level - elapsed * limit;

/** Whether a request of `cost` units fits under a level of `level`. */
export const burstFits = (rule: QuotaRule, level: number, cost: number): boolean => level <= bucketCapacity(rule) - cost * rule.windowMs;

/** The level once a request of `cost` units is counted. */
export const countedLevel = (rule: QuotaRule, level: number, cost: number): number => Math.min(level + cost * rule.windowMs, MAX_BURST_LEVEL);

/** The units the bucket still admits at once. */
export const burstRemaining = (rule: QuotaRule, level: number): number => {
  const room = bucketCapacity(rule) - level;
  return room > 0 ? Math.floor(room / rule.windowMs) : 0;
};

/** When the level has drained so that a request of `cost` fits, counting nothing more. Only when it does not fit at `at`. */
export const burstRetryTime = (rule: QuotaRule, level: number, at: number, cost: number): number =>
  at + Math.ceil((level - bucketCapacity(rule) + cost * rule.windowMs) / rule.limit);

/**
 * What of `cost` units is still in the bucket `elapsed` ms after they were counted, were they
 * drained from then on: at most what they still hold, whatever came before or after them.
 * Compared first, as drainedLevel: `elapsed * limit` is only worked out below the whole.
 */
export const undrainedUnits = (rule: QuotaRule, cost: number, elapsed: number): number => {
  const whole = cost * rule.windowMs;
  return elapsed >= Math.ceil(whole / rule.limit) ? 0 : whole - elapsed * rule.limit;
};

/** When the remaining next rises: `now` for an empty bucket (it counts nothing), else when one more unit fits. */
export const burstResetTime = (rule: QuotaRule, level: number, at: number, now: number): number =>
  level === 0 ? now : burstRetryTime(rule, level, at, burstRemaining(rule, level) + 1);
