import { afterChange, afterRefund, afterSpend, openingBalance, refilled, standingOf, type CreditBalance, type CreditChange } from '../../domain/credits/credit-balance.js';
import { periodStartOf } from '../../domain/credits/credit-periods.js';
import type { CreditRule } from '../../domain/credits/credit-rule.js';
import { assertCreditChange, assertCreditUnits } from '../../domain/credits/credit-units.js';
import type { CreditChangeResult, CreditLedger, CreditSpend, CreditStanding, CreditUsage, CreditUsageQuery } from '../../ports/credit-ledger.js';
import type { PostgresDatabase } from './postgres-database.js';

/** bigint columns come back as text (values up to 10^12, and periods in ms: exact in a double). */
type Bigint = string | number;

interface BalanceRow {
  readonly balance: Bigint;
  readonly period: Bigint;
  readonly before_balance: Bigint | null;
  readonly before_period: Bigint | null;
}

type UsageRow = { readonly subject: string } & { readonly [Field in UsageField | 'period']: Bigint };

/** The counters of a usage row, in the order WRITE binds them. */
const USAGE_FIELDS = ['spent', 'spends', 'refused', 'refunded', 'refunds', 'refilled', 'adjusted'] as const;
type UsageField = (typeof USAGE_FIELDS)[number];
type UsageDelta = Partial<Record<UsageField, number>>;

const BALANCE_COLUMNS = 'balance, period, before_balance, before_period';
const USAGE_COLUMNS = `subject, period, ${USAGE_FIELDS.join(', ')}`;

/**
 * The subject's balance row, locked until the transaction ends, inserted at the rule's opening
 * balance if the subject was never seen. One statement where INSERT ... DO NOTHING and SELECT ...
 * FOR UPDATE take two (joined in one, the SELECT's snapshot misses a row another transaction
 * inserted meanwhile): DO UPDATE locks the row whoever inserted it, and returns it as it is.
 */
const LOCK = `INSERT INTO credit_balances AS kept (subject, balance, period) VALUES ($1, $2, $3)
              ON CONFLICT (subject) DO UPDATE SET subject = kept.subject
              RETURNING ${BALANCE_COLUMNS}`;

/** The balance the rules decided, and the period's usage row added to, as one statement. */
const WRITE = `WITH kept AS (UPDATE credit_balances SET balance = $2, period = $3, before_balance = $4, before_period = $5 WHERE subject = $1)
               INSERT INTO credit_usage AS usage (${USAGE_COLUMNS}) VALUES ($1, $3, $6, $7, $8, $9, $10, $11, $12)
               ON CONFLICT (subject, period) DO UPDATE SET ${USAGE_FIELDS.map((field) => `${field} = usage.${field} + EXCLUDED.${field}`).join(', ')}`;

/**
 * A spend in the common case, as one statement (one round trip, the row locked only until its
 * own commit): the subject's row is of the current period ($3, so no refill is due) and holds the
 * units ($2). It returns the balance after; no row when any of that is not so, and the spend then
 * takes the whole step (#step), which decides every case.
 */
const SPEND_IN_PERIOD = `WITH spent AS (
                           UPDATE credit_balances SET balance = balance - $2 WHERE subject = $1 AND period = $3 AND balance >= $2
                           RETURNING balance
                         ), counted AS (
                           INSERT INTO credit_usage AS usage (subject, period, spent, spends) SELECT $1, $3, $2, 1 FROM spent
                           ON CONFLICT (subject, period) DO UPDATE SET spent = usage.spent + EXCLUDED.spent, spends = usage.spends + 1
                         )
                         SELECT balance FROM spent`;

const STANDING = `SELECT ${BALANCE_COLUMNS} FROM credit_balances WHERE subject = $1`;

/** One subject's rows: a range scan of the primary key (subject, period). Every subject's (an operator's export): all of it. */
const USAGE_OF_SUBJECT = `SELECT ${USAGE_COLUMNS} FROM credit_usage WHERE subject = $1 AND period >= $2 AND period < $3 ORDER BY period`;
const USAGE_OF_ALL = `SELECT ${USAGE_COLUMNS} FROM credit_usage WHERE period >= $1 AND period < $2 ORDER BY subject, period`;

const balanceOf = (row: BalanceRow): CreditBalance => ({
  balance: Number(row.balance),
  period: Number(row.period),
  ...(row.before_balance === null || row.before_period === null ? {} : { before: { balance: Number(row.before_balance), period: Number(row.before_period) } }),
});

const usageOf = (row: UsageRow): CreditUsage => ({
  subject: row.subject,
  period: Number(row.period),
  spent: Number(row.spent),
  spends: Number(row.spends),
  refused: Number(row.refused),
  refunded: Number(row.refunded),
  refunds: Number(row.refunds),
  refilled: Number(row.refilled),
  adjusted: Number(row.adjusted),
});


/**
 * A query's period bound as a bigint parameter: periods are whole, so `period >= 1.5` is
 * `period >= 2`; an infinite bound is one no period reaches (every period is below 2^53).
 */
const boundOf = (value: number): number => Math.min(Number.MAX_SAFE_INTEGER, Math.max(Number.MIN_SAFE_INTEGER, Math.ceil(value)));

/** What one step of the rules decided: the balance to keep, what it adds to the period's usage, and the answer. */
interface Decided<Answer> {
  readonly state: CreditBalance;
  readonly usage: UsageDelta;
  readonly answer: Answer;
}

/**
 * Credit balances and their usage in PostgreSQL (0006_credits.sql). A spend of the current
 * period that the balance holds is one statement (SPEND_IN_PERIOD); any other spend, and each
 * refund or change, is one transaction of two statements: the subject's balance row locked (LOCK), the rules of
 * credit-balance.ts applied here to it, and the balance and the period's usage row written
 * (WRITE); so concurrent calls for one subject, from any instance, take turns on its row, and a
 * spend and its usage are committed together or not at all.
 */
export class PostgresCreditLedger implements CreditLedger {
  constructor(private readonly db: PostgresDatabase) {}

  async spend(subject: string, rule: CreditRule, units: number, now: number): Promise<CreditSpend> {
    assertCreditUnits(units);
    const period = periodStartOf(rule.refill, now);
    const { rows } = await this.db.query<{ readonly balance: Bigint }>(SPEND_IN_PERIOD, [subject, units, period]);
    const spent = rows[0];
    if (spent !== undefined) return { granted: true, ...standingOf(rule, { balance: Number(spent.balance), period }) };
    return this.#step(subject, rule, now, (state): Decided<CreditSpend> => {
      const after = afterSpend(state, units);
      if (after === undefined) return { state, usage: { refused: 1 }, answer: { granted: false, ...standingOf(rule, state) } };
      return { state: after, usage: { spent: units, spends: 1 }, answer: { granted: true, ...standingOf(rule, after) } };
    });
  }

  async refund(subject: string, rule: CreditRule, units: number, spentIn: number, now: number): Promise<void> {
    assertCreditUnits(units);
    await this.#step(subject, rule, now, (current): Decided<void> => {
      const { state, added } = afterRefund(current, rule, units, spentIn);
      return { state, usage: { refunded: added, refunds: 1 }, answer: undefined };
    });
  }

  async standing(subject: string, rule: CreditRule, now: number): Promise<CreditStanding> {
    const { rows } = await this.db.read<BalanceRow>(STANDING, [subject]);
    const kept = rows[0];
    return standingOf(rule, kept === undefined ? openingBalance(rule, now) : refilled(balanceOf(kept), rule, now).state);
  }

  async change(subject: string, rule: CreditRule, change: CreditChange, now: number): Promise<CreditChangeResult> {
    assertCreditChange(change);
    return this.#step(subject, rule, now, (state): Decided<CreditChangeResult> => {
      const after = afterChange(state, change);
      return { state: after, usage: { adjusted: after.balance - state.balance }, answer: { before: state.balance, after: standingOf(rule, after) } };
    });
  }

  async usage({ subject, from = Number.NEGATIVE_INFINITY, to = Number.POSITIVE_INFINITY }: CreditUsageQuery): Promise<readonly CreditUsage[]> {
    if (Number.isNaN(from) || Number.isNaN(to)) return [];
    const { rows } =
      subject === undefined
        ? await this.db.query<UsageRow>(USAGE_OF_ALL, [boundOf(from), boundOf(to)])
        : await this.db.read<UsageRow>(USAGE_OF_SUBJECT, [subject, boundOf(from), boundOf(to)]);
    return rows.map(usageOf);
  }

  /**
   * `decide` applied to the subject's balance refilled to `now`, under its row's lock, and kept
   * with its usage. A refill's units go to the usage row of the period it opens, which is the
   * period `decide`'s step is entered in: one row written.
   */
  #step<Answer>(subject: string, rule: CreditRule, now: number, decide: (state: CreditBalance) => Decided<Answer>): Promise<Answer> {
    const opening = openingBalance(rule, now);
    return this.db.transaction(async (session) => {
      const { rows } = await session.query<BalanceRow>(LOCK, [subject, opening.balance, opening.period]);
      const locked = rows[0];
      if (locked === undefined) throw new Error(`credit_balances: no row returned for ${subject}`);
      const { state: current, added } = refilled(balanceOf(locked), rule, now);
      const { state, usage, answer } = decide(current);
      const counts = USAGE_FIELDS.map((field) => (usage[field] ?? 0) + (field === 'refilled' ? added : 0));
      await session.query(WRITE, [subject, state.balance, state.period, state.before?.balance ?? null, state.before?.period ?? null, ...counts]);
      return answer;
    });
  }
}
