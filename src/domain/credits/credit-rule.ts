import type { RuleCost } from '../quota/plan-rules.js';

/**
 * How often a credit balance refills: `'month'`, at 00:00 UTC on the first of each calendar
 * month; or every so many milliseconds, periods counted from the Unix epoch (so every instance,
 * and the ledger's export, agree on where one ends without storing it).
 */
export type RefillEvery = 'month' | number;

/**
 * A plan's usage credits: a balance per key that its matched requests spend by their cost and
 * that each period refills. Kept beside a plan's rules (Plan.credits), like its concurrency cap:
 * a balance is a record of money, held by its own port (CreditLedger), never a window's counter
 * that a restart may forget.
 */
export interface CreditRule {
  /** Shown in GET /rate_limit, the refusal and the ledger, like a rule's. */
  readonly name: string;
  /**
   * What each period's refill brings the balance up to; a balance above it (an operator's
   * top-up) is kept, never cut down.
   */
  readonly credits: number;
  /** A key's first balance; absent: `credits`. */
  readonly initial?: number;
  /** Absent: never refilled (a one-off balance that operators top up). */
  readonly refill?: RefillEvery;
  /** The operationIds that spend credits; absent: every request of the key, routed or not. */
  readonly match?: readonly string[];
  /** What a matched request spends (plan-rules.ts, RuleCost); absent: 1. */
  readonly cost?: RuleCost;
  /** The answers whose requests get their credits back (rule-refunds.ts); absent: none. */
  readonly refund?: readonly string[];
}

/** The largest balance, amount or cost a ledger holds: integers exact in a double and in SQL's bigint alike. */
export const MAX_CREDITS = 1_000_000_000_000;

/** A key's balance before any spend. */
export const initialCreditsOf = (rule: CreditRule): number => rule.initial ?? rule.credits;
