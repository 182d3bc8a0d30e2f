import type { RefillEvery } from './credit-rule.js';

/*
 * Where a refill period starts and ends. The time is always an argument (epoch milliseconds):
 * the calendar arithmetic of `Date.UTC` reads no clock.
 */

/**
 * The calendar month last asked about, [start, end): every request of a month asks again, and a
 * Date's calendar arithmetic costs about a microsecond, more than the rest of a spend.
 */
let month = { start: 0, end: 0 };

const monthOf = (now: number): { readonly start: number; readonly end: number } => {
  if (now >= month.start && now < month.end) return month;
  const at = new Date(now);
  month = { start: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1), end: Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1) };
  return month;
};

/** The start of the period `now` falls in; 0 for a balance never refilled (one period for ever). */
export const periodStartOf = (every: RefillEvery | undefined, now: number): number => {
  if (every === undefined) return 0;
  if (every === 'month') return monthOf(now).start;
  return Math.floor(now / every) * every;
};

/** When the period starting at `periodStart` ends and the next refill comes; undefined when none ever does. */
export const nextRefillAt = (every: RefillEvery | undefined, periodStart: number): number | undefined => {
  if (every === undefined) return undefined;
  if (every === 'month') return monthOf(periodStart).end;
  return periodStart + every;
};
