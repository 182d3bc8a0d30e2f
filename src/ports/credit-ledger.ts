import type { CreditChange } from '../domain/credits/credit-balance.js';
import type { CreditRule } from '../domain/credits/credit-rule.js';
import type { CallScope } from './tracer.js';

/** A key's credits as a ledger answers them. */
export interface CreditStanding {
  readonly balance: number;
  /** The start of the period the balance is of (credit-periods.ts). */
  readonly period: number;
  /** Epoch ms of the next refill; undefined for a rule that never refills. */
  readonly refillAt: number | undefined;
}

/** The answer to a spend: whether the balance held the units, and the balance after it. */
export interface CreditSpend extends CreditStanding {
  readonly granted: boolean;
}

/** An operator's change, as the ledger made it: the balance before and after. */
export interface CreditChangeResult {
  readonly before: number;
  readonly after: CreditStanding;
}

/**
 * One key's use of its credits in one period: what an operator reconciles. Over a key's whole
 * life, its balance = its rule's initial credits + refilled + adjusted − spent + refunded.
 */
export interface CreditUsage {
  readonly subject: string;
  /** The period's start (epoch ms; 0 for a rule that never refills). */
  readonly period: number;
  /** Units spent by admitted requests, and how many requests spent them. */
  readonly spent: number;
  readonly spends: number;
  /** Requests refused for too few credits. */
  readonly refused: number;
  /** Units given back (refunds, idempotent replays), and how many requests got them. */
  readonly refunded: number;
  readonly refunds: number;
  /** Units the period's refill added. */
  readonly refilled: number;
  /** Units operators added (a set counts its difference; negative when it took some away). */
  readonly adjusted: number;
}

/** Which usage rows to read: one subject's or every one's, periods starting from `from` (inclusive) to `to` (exclusive). */
export interface CreditUsageQuery {
  readonly subject?: string;
  readonly from?: number;
  readonly to?: number;
}

/**
 * Keys' credit balances and their usage ledger: records, kept like pets and orders (a restart of
 * anything but the memory store loses no acknowledged spend or change). Each call is one atomic
 * step applying credit-balance.ts's rules at `now` (the caller's clock): the period's refill,
 * then the spend, refund or change, and its usage row, together or not at all. A subject never
 * seen starts with the rule's initial credits. In-memory stores answer synchronously; remote ones
 * with a promise, rejecting with StoreUnavailableError when the store cannot answer.
 */
export interface CreditLedger {
  /** Spends `units` (an integer from 1 to MAX_CREDITS, else a RangeError) if the balance holds them, else refuses and spends nothing. */
  spend(subject: string, rule: CreditRule, units: number, now: number, scope?: CallScope): CreditSpend | Promise<CreditSpend>;
  /** Gives back `units` a granted spend of period `spentIn` took (credit-balance.ts, afterRefund). */
  refund(subject: string, rule: CreditRule, units: number, spentIn: number, now: number, scope?: CallScope): void | Promise<void>;
  /** The balance at `now`, refill included, writing nothing. */
  standing(subject: string, rule: CreditRule, now: number, scope?: CallScope): CreditStanding | Promise<CreditStanding>;
  /** An operator's set or top-up (each from 0 to MAX_CREDITS; a top-up may be negative down to −MAX_CREDITS). */
  change(subject: string, rule: CreditRule, change: CreditChange, now: number): CreditChangeResult | Promise<CreditChangeResult>;
  /** Usage rows, by subject then period. */
  usage(query: CreditUsageQuery): readonly CreditUsage[] | Promise<readonly CreditUsage[]>;
}
