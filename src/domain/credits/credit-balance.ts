import { initialCreditsOf, type CreditRule } from './credit-rule.js';
import { nextRefillAt, periodStartOf } from './credit-periods.js';

/**
 * One key's credits as a ledger keeps them. Every store applies these rules (the memory and
 * PostgreSQL stores call them, the Redis script mirrors them), so every store decides alike.
 */
export interface CreditBalance {
  readonly balance: number;
  /** The start of the period the balance is of (credit-periods.ts). */
  readonly period: number;
  /**
   * The balance the last refill started from, and the period it was of: what a refund of a
   * request spent in that period, arriving after the refill, is reckoned against.
   */
  readonly before?: { readonly balance: number; readonly period: number };
}

/** A balance as every ledger answers it: with the time of its next refill (undefined: never refilled). */
export const standingOf = (
  rule: CreditRule,
  { balance, period }: Pick<CreditBalance, 'balance' | 'period'>,
): { readonly balance: number; readonly period: number; readonly refillAt: number | undefined } => ({
  balance,
  period,
  refillAt: nextRefillAt(rule.refill, period),
});

/** A key's balance before any spend: the rule's initial credits, of the period `now` falls in. */
export const openingBalance = (rule: CreditRule, now: number): CreditBalance => ({ balance: initialCreditsOf(rule), period: periodStartOf(rule.refill, now) });

/**
 * The balance at `now`: refilled once if a period has ended since `state` (up to the rule's
 * credits, never down; several periods without a spend refill as one), and the units the
 * refill added.
 */
export const refilled = (state: CreditBalance, rule: CreditRule, now: number): { readonly state: CreditBalance; readonly added: number } => {
  const period = periodStartOf(rule.refill, now);
  // Never backwards: an instance whose clock lags one that already refilled spends from the new period.
  if (period <= state.period) return { state, added: 0 };
  const balance = Math.max(rule.credits, state.balance);
  return { state: { balance, period, before: { balance: state.balance, period: state.period } }, added: balance - state.balance };
};

/** The balance after spending `units`; undefined when it holds fewer (a balance never goes below zero). */
export const afterSpend = (state: CreditBalance, units: number): CreditBalance | undefined => {
  if (state.balance < units) return undefined;
  // Written out, not spread: every credited request takes this step.
  const { balance, period, before } = state;
  return before === undefined ? { balance: balance - units, period } : { balance: balance - units, period, before };
};

/**
 * The balance after giving back `units` spent in period `spentIn`, and the units it gained:
 * exactly what the balance would hold had the request never spent them. Spent this period: all
 * of them. Spent in the period before the last refill: the refill (which tops up to the rule's
 * credits) already made good what it could, so only what the balance would hold beyond that.
 * Spent earlier still: nothing (no request lasts a whole period).
 */
export const afterRefund = (
  state: CreditBalance,
  rule: CreditRule,
  units: number,
  spentIn: number,
): { readonly state: CreditBalance; readonly added: number } => {
  if (spentIn === state.period) return { state: { ...state, balance: state.balance + units }, added: units };
  const { before } = state;
  if (before === undefined || before.period !== spentIn) return { state, added: 0 };
  const added = Math.max(rule.credits, before.balance + units) - Math.max(rule.credits, before.balance);
  return { state: { balance: state.balance + added, period: state.period, before: { balance: before.balance + units, period: before.period } }, added };
};

/** An operator's change: a balance set outright, or units added (a top-up; negative takes some away, never below zero). */
export type CreditChange = { readonly set: number } | { readonly add: number };

/** The balance after an operator's change, never below zero. */
export const afterChange = (state: CreditBalance, change: CreditChange): CreditBalance => ({
  ...state,
  balance: 'set' in change ? change.set : Math.max(0, state.balance + change.add),
});
