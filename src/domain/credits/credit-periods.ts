import type { RefillEvery } from './credit-rule.js';

/*
 * Where a refill period starts and ends. The time is always an argument (epoch milliseconds):
 * the calendar arithmetic of `Date.UTC` reads no clock.
 */

/** The start of the period `now` falls in; 0 for a balance never refilled (one period for ever). */
export const periodStartOf = (every: RefillEvery | undefined, now: number): number => {
  if (every === undefined) return 0;
  if (every === 'month') {
    const at = new Date(now);
    return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
  }
  return Math.floor(now / every) * every;
};

/** When the period starting at `periodStart` ends and the next refill comes; undefined when none ever does. */
export const nextRefillAt = (every: RefillEvery | undefined, periodStart: number): number | undefined => {
  if (every === undefined) return undefined;
  if (every === 'month') {
    const at = new Date(periodStart);
    return Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  }
  return periodStart + every;
};
