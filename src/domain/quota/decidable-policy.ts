import { MAX_BAN_STRIKES } from './ban-policy.js';
import type { QuotaPolicy } from './quota-rule.js';
import { GRANULES_PER_WINDOW } from './sliding-window-counter.js';

/** Counts are 32-bit integers in every store: no rule may admit more within its window. */
export const MAX_RULE_LIMIT = 0xffff_ffff;

/**
 * Throws on a policy no store can decide, a configuration mistake: granules of whole
 * milliseconds keep every time an exact integer, a limit of at least 1 always has a retry
 * time, and counts fit their 32 bits; a ban's strikes fit what a store keeps and reports.
 */
export const assertDecidablePolicy = ({ rules, ban }: QuotaPolicy): void => {
  for (const { name, limit, windowMs } of rules) {
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0 || windowMs % GRANULES_PER_WINDOW !== 0) {
      throw new RangeError(`quota rule ${name}: windowMs must be a positive multiple of ${GRANULES_PER_WINDOW}`);
    }
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RULE_LIMIT) {
      throw new RangeError(`quota rule ${name}: limit must be an integer from 1 to ${MAX_RULE_LIMIT}`);
    }
  }
  if (ban !== undefined && !(Number.isSafeInteger(ban.strikes) && ban.strikes >= 1 && ban.strikes <= MAX_BAN_STRIKES)) {
    throw new RangeError(`ban policy: strikes must be an integer from 1 to ${MAX_BAN_STRIKES}`);
  }
};
