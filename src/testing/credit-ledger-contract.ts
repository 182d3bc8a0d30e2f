import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterChange, afterRefund, afterSpend, openingBalance, refilled, type CreditBalance, type CreditChange } from '../domain/credits/credit-balance.js';
import { nextRefillAt } from '../domain/credits/credit-periods.js';
import type { CreditRule } from '../domain/credits/credit-rule.js';
import type { CreditLedger, CreditUsage } from '../ports/credit-ledger.js';
import { like, rejects, same } from './assertions.js';
import { checkOf, type ContractCheck, type ContractOptions, type Disposable } from './check.js';

/** 2026-01-31T23:00:00Z: an hour before a month ends. */
const START = Date.UTC(2026, 0, 31, 23);
const DAY_MS = 86_400_000;
const MONTHLY: CreditRule = { name: 'monthly', credits: 100, refill: 'month' };
const WEEKLY: CreditRule = { name: 'weekly', credits: 50, initial: 10, refill: 7 * DAY_MS };
const ONE_OFF: CreditRule = { name: 'one-off', credits: 30 };

/** What a subject's usage rows add up to: its balance, over its whole life (port CreditUsage). */
export const ledgerBalance = (rule: CreditRule, rows: readonly CreditUsage[]): number =>
  rows.reduce((sum, row) => sum + row.refilled + row.adjusted - row.spent + row.refunded, rule.initial ?? rule.credits);

type Step =
  | { readonly kind: 'spend'; readonly units: number }
  | { readonly kind: 'refund'; readonly pick: number }
  | { readonly kind: 'change'; readonly change: CreditChange }
  | { readonly kind: 'advance'; readonly ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 12 }).map((units) => ({ kind: 'spend', units }) as const) },
  { weight: 2, arbitrary: fc.nat(30).map((pick) => ({ kind: 'refund', pick }) as const) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(fc.nat(150).map((set): CreditChange => ({ set })), fc.integer({ min: -60, max: 60 }).map((add): CreditChange => ({ add })))
      .map((change) => ({ kind: 'change', change }) as const),
  },
  { weight: 2, arbitrary: fc.oneof(fc.integer({ min: 1, max: 3_600_000 }), fc.integer({ min: 1, max: 20 * DAY_MS })).map((ms) => ({ kind: 'advance', ms }) as const) },
);

export interface CreditLedgerContractContext extends Disposable {
  readonly ledger: CreditLedger;
}

/**
 * What every CreditLedger must do, whatever keeps the balances: one check per rule. `create`
 * answers a ledger, fresh or shared (every check uses subjects of its own: Redis, PostgreSQL),
 * and how to let it go. The ledger is told the time on every call: no clock.
 */
export const creditLedgerChecks = (create: () => Promise<CreditLedgerContractContext>, options: ContractOptions = {}): ContractCheck[] => {
  interface Context extends CreditLedgerContractContext {
    subject(name: string): string;
  }
  const setup = async (): Promise<Context> => {
    const made = await create();
    const prefix = randomUUID();
    return { ledger: made.ledger, subject: (name) => `${prefix}:${name}`, cleanup: async () => made.cleanup() };
  };
  const check = (name: string, body: (context: Context) => Promise<void>): ContractCheck => checkOf(name, setup, body);

  return [
    check('starts a key at its initial credits, spends while the balance holds the units, and refuses the rest spending nothing', async ({ ledger, subject }) => {
      same(await ledger.standing(subject('a'), MONTHLY, START), { balance: 100, period: Date.UTC(2026, 0, 1), refillAt: Date.UTC(2026, 1, 1) });
      same(await ledger.spend(subject('a'), MONTHLY, 60, START), { granted: true, balance: 40, period: Date.UTC(2026, 0, 1), refillAt: Date.UTC(2026, 1, 1) });
      like(await ledger.spend(subject('a'), MONTHLY, 41, START), { granted: false, balance: 40 });
      like(await ledger.spend(subject('a'), MONTHLY, 40, START), { granted: true, balance: 0 });
      like(await ledger.spend(subject('a'), MONTHLY, 1, START), { granted: false, balance: 0 });
      // Another subject has a balance of its own; a rule with `initial` starts there.
      like(await ledger.standing(subject('b'), WEEKLY, START), { balance: 10 });
      same(await ledger.usage({ subject: subject('a') }), [
        { subject: subject('a'), period: Date.UTC(2026, 0, 1), spent: 100, spends: 2, refused: 2, refunded: 0, refunds: 0, refilled: 0, adjusted: 0 },
      ]);
    }),

    check('refills on the first of each calendar month in UTC up to the credits, and keeps a topped-up balance above them', async ({ ledger, subject }) => {
      await ledger.spend(subject('a'), MONTHLY, 70, START);
      const justBefore = Date.UTC(2026, 1, 1) - 1;
      like(await ledger.spend(subject('a'), MONTHLY, 31, justBefore), { granted: false, balance: 30 });
      same(await ledger.spend(subject('a'), MONTHLY, 31, Date.UTC(2026, 1, 1)), { granted: true, balance: 69, period: Date.UTC(2026, 1, 1), refillAt: Date.UTC(2026, 2, 1) });
      await ledger.change(subject('a'), MONTHLY, { add: 500 }, Date.UTC(2026, 1, 10));
      // February has 28 days in 2026; a month without a request refills once.
      same(await ledger.standing(subject('a'), MONTHLY, Date.UTC(2026, 4, 15)), { balance: 569, period: Date.UTC(2026, 4, 1), refillAt: Date.UTC(2026, 5, 1) });
      const rows = await ledger.usage({ subject: subject('a') });
      same(rows.map(({ period, refilled, adjusted }) => [period, refilled, adjusted]), [
        [Date.UTC(2026, 0, 1), 0, 0],
        [Date.UTC(2026, 1, 1), 70, 500],
      ]);
      same(ledgerBalance(MONTHLY, rows), 569);
    }),

    check('refills a fixed period counted from the epoch, and never refills a rule without one', async ({ ledger, subject }) => {
      const week = 7 * DAY_MS;
      const period = Math.floor(START / week) * week;
      same(await ledger.spend(subject('w'), WEEKLY, 10, START), { granted: true, balance: 0, period, refillAt: period + week });
      like(await ledger.spend(subject('w'), WEEKLY, 50, period + week), { granted: true, balance: 0 });
      same(await ledger.spend(subject('o'), ONE_OFF, 30, START), { granted: true, balance: 0, period: 0, refillAt: undefined });
      same(await ledger.standing(subject('o'), ONE_OFF, START + 400 * DAY_MS), { balance: 0, period: 0, refillAt: undefined });
    }),

    check('gives a refund back in the period that spent it, and after a refill only what the balance would hold had the request never spent', async ({ ledger, subject }) => {
      await ledger.spend(subject('a'), MONTHLY, 30, START);
      await ledger.refund(subject('a'), MONTHLY, 30, Date.UTC(2026, 0, 1), START + 1);
      like(await ledger.standing(subject('a'), MONTHLY, START + 2), { balance: 100 });
      // 100 → spend 90 → 10 left; February refills to 100; the refund of 90 then brings what 100 + ... would: max(100, 10 + 90) − max(100, 10) = 0.
      await ledger.spend(subject('a'), MONTHLY, 90, START + 3);
      await ledger.spend(subject('a'), MONTHLY, 5, Date.UTC(2026, 1, 1));
      await ledger.refund(subject('a'), MONTHLY, 90, Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1) + 1);
      like(await ledger.standing(subject('a'), MONTHLY, Date.UTC(2026, 1, 1) + 2), { balance: 95 });
      // Topped up above the credits before the month ended, the refund beyond them comes back whole.
      await ledger.change(subject('b'), MONTHLY, { set: 150 }, START);
      await ledger.spend(subject('b'), MONTHLY, 20, START);
      await ledger.refund(subject('b'), MONTHLY, 20, Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1));
      like(await ledger.standing(subject('b'), MONTHLY, Date.UTC(2026, 1, 1)), { balance: 150 });
      // Two refunds after one refill: the second is reckoned against the balance the first left before the refill.
      await ledger.change(subject('d'), MONTHLY, { set: 150 }, START);
      await ledger.spend(subject('d'), MONTHLY, 60, START);
      await ledger.spend(subject('d'), MONTHLY, 30, START);
      await ledger.refund(subject('d'), MONTHLY, 30, Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1));
      like(await ledger.standing(subject('d'), MONTHLY, Date.UTC(2026, 1, 1)), { balance: 100 });
      await ledger.refund(subject('d'), MONTHLY, 60, Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1));
      like(await ledger.standing(subject('d'), MONTHLY, Date.UTC(2026, 1, 1)), { balance: 150 });
      // A spend from two periods back gets nothing.
      await ledger.spend(subject('c'), MONTHLY, 50, START);
      await ledger.refund(subject('c'), MONTHLY, 50, Date.UTC(2026, 0, 1), Date.UTC(2026, 2, 1));
      like(await ledger.standing(subject('c'), MONTHLY, Date.UTC(2026, 2, 1)), { balance: 100 });
    }),

    check("sets or tops up a balance, never below zero, answering the balance before and after, entered in the period's usage", async ({ ledger, subject }) => {
      same(await ledger.change(subject('a'), MONTHLY, { set: 7 }, START), { before: 100, after: { balance: 7, period: Date.UTC(2026, 0, 1), refillAt: Date.UTC(2026, 1, 1) } });
      like(await ledger.change(subject('a'), MONTHLY, { add: 5 }, START), { before: 7, after: { balance: 12 } });
      like(await ledger.change(subject('a'), MONTHLY, { add: -50 }, START), { before: 12, after: { balance: 0 } });
      const [row] = await ledger.usage({ subject: subject('a') });
      same(row?.adjusted, -100);
      // Thrown or rejected, a RangeError either way.
      await rejects(async () => ledger.change(subject('a'), MONTHLY, { set: -1 }, START), RangeError);
      await rejects(async () => ledger.spend(subject('a'), MONTHLY, 0, START), RangeError);
      await rejects(async () => ledger.spend(subject('a'), MONTHLY, 1.5, START), RangeError);
    }),

    check('writes nothing when only read, and reads usage by subject and by period range', async ({ ledger, subject }) => {
      await ledger.standing(subject('quiet'), MONTHLY, START);
      same(await ledger.usage({ subject: subject('quiet') }), []);
      await ledger.spend(subject('a'), MONTHLY, 1, START);
      await ledger.spend(subject('a'), MONTHLY, 2, Date.UTC(2026, 1, 3));
      await ledger.spend(subject('a'), MONTHLY, 3, Date.UTC(2026, 2, 3));
      const middle = await ledger.usage({ subject: subject('a'), from: Date.UTC(2026, 1, 1), to: Date.UTC(2026, 2, 1) });
      same(middle.map(({ period, spent }) => [period, spent]), [[Date.UTC(2026, 1, 1), 2]]);
      const all = await ledger.usage({});
      same((all.filter((row) => row.subject === subject('a'))).length, 3);
    }),

    check('grants exactly as many of many concurrent spends as the balance holds', async ({ ledger, subject }) => {
      const answers = await Promise.all(Array.from({ length: 60 }, () => ledger.spend(subject('a'), ONE_OFF, 1, START)));
      same((answers.filter(({ granted }) => granted)).length, 30);
      like(await ledger.standing(subject('a'), ONE_OFF, START), { balance: 0 });
      like(await ledger.usage({ subject: subject('a') }), [{ spent: 30, spends: 30, refused: 30 }]);
    }),

    check('answers every step of any schedule as the credit rules do, and its usage rows always add up to its balance', async ({ ledger, subject }) => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(MONTHLY, WEEKLY, ONE_OFF), fc.array(stepArb, { maxLength: 40 }), async (rule, steps) => {
          const name = subject(randomUUID());
          let now = START;
          let model: CreditBalance | undefined;
          const granted: { readonly units: number; readonly period: number }[] = [];
          const atNow = (): CreditBalance => (model === undefined ? openingBalance(rule, now) : refilled(model, rule, now).state);
          for (const step of steps) {
            if (step.kind === 'advance') now += step.ms;
            else if (step.kind === 'spend') {
              const current = atNow();
              const after = afterSpend(current, step.units);
              model = after ?? current;
              const answer = await ledger.spend(name, rule, step.units, now);
              const refillAt = nextRefillAt(rule.refill, model.period);
              same(answer, { granted: after !== undefined, balance: model.balance, period: model.period, refillAt });
              if (after !== undefined) granted.push({ units: step.units, period: model.period });
            } else if (step.kind === 'refund') {
              const spend = granted.splice(step.pick % Math.max(1, granted.length), 1)[0];
              if (spend === undefined) continue;
              model = afterRefund(atNow(), rule, spend.units, spend.period).state;
              await ledger.refund(name, rule, spend.units, spend.period, now);
            } else {
              const current = atNow();
              model = afterChange(current, step.change);
              like(await ledger.change(name, rule, step.change, now), { before: current.balance, after: { balance: model.balance } });
            }
            same((await ledger.standing(name, rule, now)).balance, atNow().balance);
          }
          const rows = await ledger.usage({ subject: name });
          const kept = model === undefined ? (rule.initial ?? rule.credits) : model.balance;
          same(ledgerBalance(rule, rows), kept);
        }),
        { numRuns: options.numRuns ?? 60 },
      );
    }),
  ];
};
