import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { afterChange, afterRefund, afterSpend, openingBalance, refilled, type CreditBalance, type CreditChange } from '../../src/domain/credits/credit-balance.js';
import { nextRefillAt } from '../../src/domain/credits/credit-periods.js';
import type { CreditRule } from '../../src/domain/credits/credit-rule.js';
import type { CreditLedger, CreditUsage } from '../../src/ports/credit-ledger.js';
import { runs } from '../support/property-runs.js';

/** 2026-01-31T23:00:00Z: an hour before a month ends. */
const START = Date.UTC(2026, 0, 31, 23);
const DAY_MS = 86_400_000;
const MONTHLY: CreditRule = { name: 'monthly', credits: 100, refill: 'month' };
const WEEKLY: CreditRule = { name: 'weekly', credits: 50, initial: 10, refill: 7 * DAY_MS };
const ONE_OFF: CreditRule = { name: 'one-off', credits: 30 };

/** What a subject's usage rows add up to: its balance, over its whole life (port CreditUsage). */
const ledgerBalance = (rule: CreditRule, rows: readonly CreditUsage[]): number =>
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

/**
 * What every CreditLedger must do, whatever keeps the balances. Stores may outlive one test
 * (Redis, PostgreSQL): every test uses subjects of its own.
 */
export const describeCreditLedgerContract = (adapterName: string, create: () => Promise<{ ledger: CreditLedger; cleanup(): Promise<void> }>): void => {
  describe(`CreditLedger contract: ${adapterName}`, () => {
    let ledger: CreditLedger;
    let cleanup: () => Promise<void>;
    let prefix: string;
    const subject = (name: string): string => `${prefix}:${name}`;

    beforeEach(async () => {
      ({ ledger, cleanup } = await create());
      prefix = randomUUID();
    });
    afterEach(async () => {
      await cleanup();
    });

    it('starts a key at its initial credits, spends while the balance holds the units, and refuses the rest spending nothing', async () => {
      expect(await ledger.standing(subject('a'), MONTHLY, START)).toEqual({ balance: 100, period: Date.UTC(2026, 0, 1), refillAt: Date.UTC(2026, 1, 1) });
      expect(await ledger.spend(subject('a'), MONTHLY, 60, START)).toEqual({ granted: true, balance: 40, period: Date.UTC(2026, 0, 1), refillAt: Date.UTC(2026, 1, 1) });
      expect(await ledger.spend(subject('a'), MONTHLY, 41, START)).toMatchObject({ granted: false, balance: 40 });
      expect(await ledger.spend(subject('a'), MONTHLY, 40, START)).toMatchObject({ granted: true, balance: 0 });
      expect(await ledger.spend(subject('a'), MONTHLY, 1, START)).toMatchObject({ granted: false, balance: 0 });
      // Another subject has a balance of its own; a rule with `initial` starts there.
      expect(await ledger.standing(subject('b'), WEEKLY, START)).toMatchObject({ balance: 10 });
      expect(await ledger.usage({ subject: subject('a') })).toEqual([
        { subject: subject('a'), period: Date.UTC(2026, 0, 1), spent: 100, spends: 2, refused: 2, refunded: 0, refunds: 0, refilled: 0, adjusted: 0 },
      ]);
    });

    it('refills on the first of each calendar month in UTC up to the credits, and keeps a topped-up balance above them', async () => {
      await ledger.spend(subject('a'), MONTHLY, 70, START);
      const justBefore = Date.UTC(2026, 1, 1) - 1;
      expect(await ledger.spend(subject('a'), MONTHLY, 31, justBefore)).toMatchObject({ granted: false, balance: 30 });
      expect(await ledger.spend(subject('a'), MONTHLY, 31, Date.UTC(2026, 1, 1))).toEqual({ granted: true, balance: 69, period: Date.UTC(2026, 1, 1), refillAt: Date.UTC(2026, 2, 1) });
      await ledger.change(subject('a'), MONTHLY, { add: 500 }, Date.UTC(2026, 1, 10));
      // February has 28 days in 2026; a month without a request refills once.
      expect(await ledger.standing(subject('a'), MONTHLY, Date.UTC(2026, 4, 15))).toEqual({ balance: 569, period: Date.UTC(2026, 4, 1), refillAt: Date.UTC(2026, 5, 1) });
      const rows = await ledger.usage({ subject: subject('a') });
      expect(rows.map(({ period, refilled, adjusted }) => [period, refilled, adjusted])).toEqual([
        [Date.UTC(2026, 0, 1), 0, 0],
        [Date.UTC(2026, 1, 1), 70, 500],
      ]);
      expect(ledgerBalance(MONTHLY, rows)).toBe(569);
    });

    it('refills a fixed period counted from the epoch, and never refills a rule without one', async () => {
      const week = 7 * DAY_MS;
      const period = Math.floor(START / week) * week;
      expect(await ledger.spend(subject('w'), WEEKLY, 10, START)).toEqual({ granted: true, balance: 0, period, refillAt: period + week });
      expect(await ledger.spend(subject('w'), WEEKLY, 50, period + week)).toMatchObject({ granted: true, balance: 0 });
      expect(await ledger.spend(subject('o'), ONE_OFF, 30, START)).toEqual({ granted: true, balance: 0, period: 0, refillAt: undefined });
      expect(await ledger.standing(subject('o'), ONE_OFF, START + 400 * DAY_MS)).toEqual({ balance: 0, period: 0, refillAt: undefined });
    });

    it('gives a refund back in the period that spent it, and after a refill only what the balance would hold had the request never spent', async () => {
      await ledger.spend(subject('a'), MONTHLY, 30, START);
      await ledger.refund(subject('a'), MONTHLY, 30, Date.UTC(2026, 0, 1), START + 1);
      expect(await ledger.standing(subject('a'), MONTHLY, START + 2)).toMatchObject({ balance: 100 });
      // 100 → spend 90 → 10 left; February refills to 100; the refund of 90 then brings what 100 + ... would: max(100, 10 + 90) − max(100, 10) = 0.
      await ledger.spend(subject('a'), MONTHLY, 90, START + 3);
      await ledger.spend(subject('a'), MONTHLY, 5, Date.UTC(2026, 1, 1));
      await ledger.refund(subject('a'), MONTHLY, 90, Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1) + 1);
      expect(await ledger.standing(subject('a'), MONTHLY, Date.UTC(2026, 1, 1) + 2)).toMatchObject({ balance: 95 });
      // Topped up above the credits before the month ended, the refund beyond them comes back whole.
      await ledger.change(subject('b'), MONTHLY, { set: 150 }, START);
      await ledger.spend(subject('b'), MONTHLY, 20, START);
      await ledger.refund(subject('b'), MONTHLY, 20, Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1));
      expect(await ledger.standing(subject('b'), MONTHLY, Date.UTC(2026, 1, 1))).toMatchObject({ balance: 150 });
      // Two refunds after one refill: the second is reckoned against the balance the first left before the refill.
      await ledger.change(subject('d'), MONTHLY, { set: 150 }, START);
      await ledger.spend(subject('d'), MONTHLY, 60, START);
      await ledger.spend(subject('d'), MONTHLY, 30, START);
      await ledger.refund(subject('d'), MONTHLY, 30, Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1));
      expect(await ledger.standing(subject('d'), MONTHLY, Date.UTC(2026, 1, 1))).toMatchObject({ balance: 100 });
      await ledger.refund(subject('d'), MONTHLY, 60, Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1));
      expect(await ledger.standing(subject('d'), MONTHLY, Date.UTC(2026, 1, 1))).toMatchObject({ balance: 150 });
      // A spend from two periods back gets nothing.
      await ledger.spend(subject('c'), MONTHLY, 50, START);
      await ledger.refund(subject('c'), MONTHLY, 50, Date.UTC(2026, 0, 1), Date.UTC(2026, 2, 1));
      expect(await ledger.standing(subject('c'), MONTHLY, Date.UTC(2026, 2, 1))).toMatchObject({ balance: 100 });
    });

    it("sets or tops up a balance, never below zero, answering the balance before and after, entered in the period's usage", async () => {
      expect(await ledger.change(subject('a'), MONTHLY, { set: 7 }, START)).toEqual({ before: 100, after: { balance: 7, period: Date.UTC(2026, 0, 1), refillAt: Date.UTC(2026, 1, 1) } });
      expect(await ledger.change(subject('a'), MONTHLY, { add: 5 }, START)).toMatchObject({ before: 7, after: { balance: 12 } });
      expect(await ledger.change(subject('a'), MONTHLY, { add: -50 }, START)).toMatchObject({ before: 12, after: { balance: 0 } });
      const [row] = await ledger.usage({ subject: subject('a') });
      expect(row?.adjusted).toBe(-100);
      // Thrown or rejected, a RangeError either way.
      await expect(async () => ledger.change(subject('a'), MONTHLY, { set: -1 }, START)).rejects.toThrow(RangeError);
      await expect(async () => ledger.spend(subject('a'), MONTHLY, 0, START)).rejects.toThrow(RangeError);
      await expect(async () => ledger.spend(subject('a'), MONTHLY, 1.5, START)).rejects.toThrow(RangeError);
    });

    it('writes nothing when only read, and reads usage by subject and by period range', async () => {
      await ledger.standing(subject('quiet'), MONTHLY, START);
      expect(await ledger.usage({ subject: subject('quiet') })).toEqual([]);
      await ledger.spend(subject('a'), MONTHLY, 1, START);
      await ledger.spend(subject('a'), MONTHLY, 2, Date.UTC(2026, 1, 3));
      await ledger.spend(subject('a'), MONTHLY, 3, Date.UTC(2026, 2, 3));
      const middle = await ledger.usage({ subject: subject('a'), from: Date.UTC(2026, 1, 1), to: Date.UTC(2026, 2, 1) });
      expect(middle.map(({ period, spent }) => [period, spent])).toEqual([[Date.UTC(2026, 1, 1), 2]]);
      const all = await ledger.usage({});
      expect(all.filter((row) => row.subject === subject('a'))).toHaveLength(3);
    });

    it('grants exactly as many of many concurrent spends as the balance holds', async () => {
      const answers = await Promise.all(Array.from({ length: 60 }, () => ledger.spend(subject('a'), ONE_OFF, 1, START)));
      expect(answers.filter(({ granted }) => granted)).toHaveLength(30);
      expect(await ledger.standing(subject('a'), ONE_OFF, START)).toMatchObject({ balance: 0 });
      expect(await ledger.usage({ subject: subject('a') })).toMatchObject([{ spent: 30, spends: 30, refused: 30 }]);
    });

    it('answers every step of any schedule as the credit rules do, and its usage rows always add up to its balance', async () => {
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
              expect(answer).toEqual({ granted: after !== undefined, balance: model.balance, period: model.period, refillAt });
              if (after !== undefined) granted.push({ units: step.units, period: model.period });
            } else if (step.kind === 'refund') {
              const spend = granted.splice(step.pick % Math.max(1, granted.length), 1)[0];
              if (spend === undefined) continue;
              model = afterRefund(atNow(), rule, spend.units, spend.period).state;
              await ledger.refund(name, rule, spend.units, spend.period, now);
            } else {
              const current = atNow();
              model = afterChange(current, step.change);
              expect(await ledger.change(name, rule, step.change, now)).toMatchObject({ before: current.balance, after: { balance: model.balance } });
            }
            expect((await ledger.standing(name, rule, now)).balance).toBe(atNow().balance);
          }
          const rows = await ledger.usage({ subject: name });
          const kept = model === undefined ? (rule.initial ?? rule.credits) : model.balance;
          expect(ledgerBalance(rule, rows)).toBe(kept);
        }),
        { numRuns: runs(60) },
      );
    });
  });
};
