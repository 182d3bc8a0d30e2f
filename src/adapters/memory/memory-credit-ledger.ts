import { afterChange, afterRefund, afterSpend, openingBalance, refilled, standingOf, type CreditBalance, type CreditChange } from '../../domain/credits/credit-balance.js';
import type { CreditRule } from '../../domain/credits/credit-rule.js';
import { assertCreditChange, assertCreditUnits } from '../../domain/credits/credit-units.js';
import type { CreditChangeResult, CreditLedger, CreditSpend, CreditStanding, CreditUsage, CreditUsageQuery } from '../../ports/credit-ledger.js';

type Usage = { -readonly [Field in keyof CreditUsage]: CreditUsage[Field] };


/** One process's credits, decided synchronously and gone at its exit: for development and tests. */
export class MemoryCreditLedger implements CreditLedger {
  readonly #balances = new Map<string, CreditBalance>();
  /** Per subject, its usage rows by period. */
  readonly #usage = new Map<string, Map<number, Usage>>();

  spend(subject: string, rule: CreditRule, units: number, now: number): CreditSpend {
    assertCreditUnits(units);
    const state = this.#refilled(subject, rule, now);
    const after = afterSpend(state, units);
    const usage = this.#usageOf(subject, state.period);
    if (after === undefined) {
      usage.refused++;
      return { granted: false, ...standingOf(rule, state) };
    }
    this.#balances.set(subject, after);
    usage.spent += units;
    usage.spends++;
    return { granted: true, ...standingOf(rule, after) };
  }

  refund(subject: string, rule: CreditRule, units: number, spentIn: number, now: number): void {
    assertCreditUnits(units);
    const { state, added } = afterRefund(this.#refilled(subject, rule, now), rule, units, spentIn);
    this.#balances.set(subject, state);
    const usage = this.#usageOf(subject, state.period);
    usage.refunded += added;
    usage.refunds++;
  }

  standing(subject: string, rule: CreditRule, now: number): CreditStanding {
    const kept = this.#balances.get(subject);
    return standingOf(rule, kept === undefined ? openingBalance(rule, now) : refilled(kept, rule, now).state);
  }

  change(subject: string, rule: CreditRule, change: CreditChange, now: number): CreditChangeResult {
    assertCreditChange(change);
    const state = this.#refilled(subject, rule, now);
    const after = afterChange(state, change);
    this.#balances.set(subject, after);
    this.#usageOf(subject, state.period).adjusted += after.balance - state.balance;
    return { before: state.balance, after: standingOf(rule, after) };
  }

  usage({ subject, from = Number.NEGATIVE_INFINITY, to = Number.POSITIVE_INFINITY }: CreditUsageQuery): readonly CreditUsage[] {
    const subjects = subject === undefined ? [...this.#usage.keys()].sort() : [subject];
    return subjects.flatMap((name) =>
      [...(this.#usage.get(name)?.values() ?? [])]
        .filter(({ period }) => period >= from && period < to)
        .sort((a, b) => a.period - b.period)
        .map((row) => ({ ...row })),
    );
  }

  /** The subject's balance refilled to `now` and kept, its refill entered in the usage of the period it opens. */
  #refilled(subject: string, rule: CreditRule, now: number): CreditBalance {
    const kept = this.#balances.get(subject);
    if (kept === undefined) {
      const opening = openingBalance(rule, now);
      this.#balances.set(subject, opening);
      return opening;
    }
    const { state, added } = refilled(kept, rule, now);
    if (state !== kept) {
      this.#balances.set(subject, state);
      this.#usageOf(subject, state.period).refilled += added;
    }
    return state;
  }

  #usageOf(subject: string, period: number): Usage {
    let rows = this.#usage.get(subject);
    if (rows === undefined) {
      rows = new Map();
      this.#usage.set(subject, rows);
    }
    let row = rows.get(period);
    if (row === undefined) {
      row = { subject, period, spent: 0, spends: 0, refused: 0, refunded: 0, refunds: 0, refilled: 0, adjusted: 0 };
      rows.set(period, row);
    }
    return row;
  }
}
