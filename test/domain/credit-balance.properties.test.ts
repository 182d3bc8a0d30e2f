import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryCreditLedger } from '../../src/adapters/memory/memory-credit-ledger.js';
import { afterChange, afterRefund, afterSpend, openingBalance, refilled, type CreditBalance, type CreditChange } from '../../src/domain/credits/credit-balance.js';
import { nextRefillAt, periodStartOf } from '../../src/domain/credits/credit-periods.js';
import type { CreditRule, RefillEvery } from '../../src/domain/credits/credit-rule.js';
import { check } from '../support/fast-assertions.js';
import { runs, share } from '../support/property-runs.js';

/*
 * The credit rules (credit-balance.ts, credit-periods.ts) against a plain model of what the issue
 * promises: a balance that spends never take below zero, refilled at each period's end up to the
 * credits (never down), and refunds that leave the balance as if the request had never spent.
 * The store contract checks stores follow the rules step by step; this checks the rules.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------------------------
// The model's periods, computed without the rules' code: calendar months from a table of month
// lengths by the Gregorian rule (no Date arithmetic), fixed periods counted from the epoch.

const isLeap = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** 2020-01-01T00:00:00Z: 18,262 days after the epoch. */
const TABLE_FROM = 18_262 * DAY;
const TABLE_YEARS = 40;
const MONTH_STARTS: readonly number[] = (() => {
  const starts: number[] = [];
  let at = TABLE_FROM;
  for (let year = 2020; year < 2020 + TABLE_YEARS; year++) {
    for (let month = 0; month < 12; month++) {
      starts.push(at);
      at += (MONTH_DAYS[month]! + (month === 1 && isLeap(year) ? 1 : 0)) * DAY;
    }
  }
  starts.push(at);
  return starts;
})();

/** The period `t` falls in, by the model: an index that grows by one per period, its start and its end. */
interface ModelPeriod {
  readonly index: number;
  readonly start: number;
  readonly end: number;
}

const modelPeriod = (every: RefillEvery | undefined, t: number): ModelPeriod => {
  if (every === undefined) return { index: 0, start: 0, end: Number.POSITIVE_INFINITY };
  if (every !== 'month') {
    const index = Math.floor(t / every);
    return { index, start: index * every, end: (index + 1) * every };
  }
  if (t < MONTH_STARTS[0]! || t >= MONTH_STARTS[MONTH_STARTS.length - 1]!) throw new Error(`${t} is outside the model's table of months`);
  let low = 0;
  let high = MONTH_STARTS.length - 1;
  // The last start at or before t.
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (MONTH_STARTS[middle]! <= t) low = middle;
    else high = middle;
  }
  return { index: low, start: MONTH_STARTS[low]!, end: MONTH_STARTS[low + 1]! };
};

/** The model's refill: up to the credits at a period's end, never down; once however many periods ended. */
const modelRefill = (rule: CreditRule, balance: number): number => Math.max(rule.credits, balance);
const initialOf = (rule: CreditRule): number => rule.initial ?? rule.credits;

const iso = (t: number): string => new Date(t).toISOString();

// ---------------------------------------------------------------------------------------------
// Generators.

const refillArb: fc.Arbitrary<RefillEvery> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('month' as const) },
  { weight: 2, arbitrary: fc.constantFrom(HOUR, DAY, 7 * DAY, 30 * DAY) },
  // What a plans file accepts: from a minute to 366 days.
  { weight: 1, arbitrary: fc.integer({ min: MINUTE, max: 366 * DAY }) },
);

const ruleArb = (refill: fc.Arbitrary<RefillEvery | undefined>): fc.Arbitrary<CreditRule> =>
  fc
    .record({ credits: fc.integer({ min: 1, max: 60 }), initial: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }), refill })
    .map(({ credits, initial, refill: every }) => ({
      name: 'model',
      credits,
      ...(initial === undefined ? {} : { initial }),
      ...(every === undefined ? {} : { refill: every }),
    }));

const refillingRuleArb = ruleArb(refillArb);
const anyRuleArb = ruleArb(fc.option(refillArb, { nil: undefined, freq: 6 }));

/** A first request somewhere in 2024–2028, so histories cross Februaries of leap years and others. */
const startArb = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2029, 0, 1) - 1 });

/**
 * How the clock moves before a step: a share of the current period (which may cross its end), or
 * to a period end `periods` ahead, give or take an `offset` (exactly on it, a millisecond either
 * side, or later within the hour); `lag` moves it back, an instance whose clock is behind.
 */
type Advance =
  | { readonly kind: 'within'; readonly permille: number }
  | { readonly kind: 'across'; readonly periods: number; readonly offset: number }
  | { readonly kind: 'lag'; readonly ms: number };

const forwardArb: fc.Arbitrary<Advance> = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(fc.constant(0), fc.nat(999)).map((permille) => ({ kind: 'within', permille }) as const) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        periods: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 4 }) }),
        offset: fc.oneof(fc.constant(0), fc.integer({ min: -1, max: 1 }), fc.integer({ min: 0, max: HOUR })),
      })
      .map(({ periods, offset }) => ({ kind: 'across', periods, offset }) as const),
  },
);
const laggingArb: fc.Arbitrary<Advance> = fc.oneof(
  { weight: 6, arbitrary: forwardArb },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: HOUR }).map((ms) => ({ kind: 'lag', ms }) as const) },
);

/** The time after `advance` from `t`; a rule that never refills moves on by days instead. */
const advanced = (every: RefillEvery | undefined, t: number, advance: Advance): number => {
  if (advance.kind === 'lag') return t - advance.ms;
  const { start, end } = modelPeriod(every, t);
  const length = Number.isFinite(end) ? end - start : 40 * DAY;
  if (advance.kind === 'within') return t + Math.floor((length * advance.permille) / 1000);
  if (!Number.isFinite(end)) return t + advance.periods * length + advance.offset;
  let target = start;
  for (let i = 0; i < advance.periods; i++) target = modelPeriod(every, target).end;
  return Math.max(t, target + advance.offset);
};

const changeArb: fc.Arbitrary<CreditChange> = fc.oneof(
  fc.nat(150).map((set): CreditChange => ({ set })),
  fc.integer({ min: -60, max: 60 }).map((add): CreditChange => ({ add })),
);

/** Any step an operator and a key's requests may take; a refund gives back a granted spend picked by `pick`. */
type Op =
  | { readonly kind: 'spend'; readonly units: number }
  | { readonly kind: 'refund'; readonly pick: number }
  | { readonly kind: 'change'; readonly change: CreditChange };

const anyOpArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 25 }).map((units) => ({ kind: 'spend', units }) as const) },
  { weight: 2, arbitrary: fc.nat(1000).map((pick) => ({ kind: 'refund', pick }) as const) },
  { weight: 2, arbitrary: changeArb.map((change) => ({ kind: 'change', change }) as const) },
);

const stepsArb = <T>(op: fc.Arbitrary<T>, advance: fc.Arbitrary<Advance>): fc.Arbitrary<readonly { readonly advance: Advance; readonly op: T }[]> =>
  fc.array(fc.record({ advance, op }), { minLength: 10, maxLength: 50 });

/** A granted spend, as a caller keeps it to refund it: its units and the period its answer named. */
interface Granted {
  readonly units: number;
  readonly spentIn: number;
}

describe('credit rules against a plain model', () => {
  it('a balance never goes below zero, and a spend is granted exactly when the balance refilled to its time holds its units (taking them), else refused taking nothing', () => {
    let granted = 0;
    let refused = 0;
    let emptied = 0;
    fc.assert(
      fc.property(anyRuleArb, startArb, stepsArb(anyOpArb, laggingArb), (rule, start, steps) => {
        // Opened at the first request, as a ledger opens a key it never saw.
        let state: CreditBalance | undefined;
        const ledger = new MemoryCreditLedger();
        const spends: Granted[] = [];
        let t = start;
        for (const { advance, op } of steps) {
          t = advanced(rule.refill, t, advance);
          const now = state === undefined ? openingBalance(rule, t) : refilled(state, rule, t).state;
          const where = (): string => `${op.kind} at ${iso(t)}: balance ${now.balance}, ${JSON.stringify(op)}`;
          // The ledger, applying the same rules, stands at the same balance before every step.
          check(ledger.standing('k', rule, t).balance === now.balance, where);
          if (op.kind === 'spend') {
            const after = afterSpend(now, op.units);
            const answer = ledger.spend('k', rule, op.units, t);
            check((after !== undefined) === now.balance >= op.units, where);
            check(answer.granted === (after !== undefined) && answer.balance === (after ?? now).balance, where);
            if (after === undefined) {
              refused++;
              state = now;
              continue;
            }
            check(after.balance === now.balance - op.units, where);
            if (after.balance === 0) emptied++;
            granted++;
            spends.push({ units: op.units, spentIn: now.period });
            state = after;
          } else if (op.kind === 'refund') {
            const spend = spends.splice(op.pick % Math.max(1, spends.length), 1)[0];
            if (spend === undefined) continue;
            const { state: after, added } = afterRefund(now, rule, spend.units, spend.spentIn);
            ledger.refund('k', rule, spend.units, spend.spentIn, t);
            // A refund gives back at most what was spent, and never takes any.
            check(added >= 0 && added <= spend.units && after.balance === now.balance + added, where);
            state = after;
          } else {
            state = afterChange(now, op.change);
            check(ledger.change('k', rule, op.change, t).after.balance === state.balance, where);
          }
          check(Number.isInteger(state.balance) && state.balance >= 0, where);
          check(ledger.standing('k', rule, t).balance === state.balance, where);
        }
      }),
      { numRuns: runs(300) },
    );
    expect(granted).toBeGreaterThan(share(1_500));
    expect(refused).toBeGreaterThan(share(350));
    expect(emptied).toBeGreaterThan(share(10));
  });

  it("at each period's end ('month': the calendar months in UTC, February of leap years and others; a fixed period: counted from the epoch) the balance starts the new period at max(credits, the balance the previous one ended with); a run of periods without a request refills once, the same as one refill", () => {
    let periodsEnded = 0;
    let februaries = 0;
    let leapFebruaries = 0;
    let runsOfPeriods = 0;
    let onTheMillisecond = 0;
    fc.assert(
      fc.property(refillingRuleArb, startArb, stepsArb(anyOpArb, forwardArb), (rule, start, steps) => {
        const every = rule.refill!;
        let state = openingBalance(rule, start);
        let balance = initialOf(rule);
        let period = modelPeriod(every, start);
        check(state.balance === balance && state.period === period.start, () => `opened at ${iso(start)}: ${JSON.stringify(state)}`);
        let t = start;
        for (const { advance, op } of steps) {
          t = advanced(every, t, advance);
          const at = modelPeriod(every, t);
          const where = (): string => `${iso(t)}, balance ${balance} of the period from ${iso(period.start)}: ${JSON.stringify(state)}`;
          // Where periods start and end, by the rules and by the model.
          check(periodStartOf(every, t) === at.start && nextRefillAt(every, at.start) === at.end, where);
          const { state: now, added } = refilled(state, rule, t);
          if (at.index > period.index) {
            periodsEnded++;
            if (t === at.start) onTheMillisecond++;
            if (every === 'month' && new Date(period.start).getUTCMonth() === 1) {
              februaries++;
              if (isLeap(new Date(period.start).getUTCFullYear())) leapFebruaries++;
            }
            // The period's last millisecond is still the old one.
            check(refilled(state, rule, period.end - 1).added === 0 && refilled(state, rule, period.end - 1).state.period === period.start, where);
            if (at.index > period.index + 1) {
              runsOfPeriods++;
              // Refilled at the first of the ended periods, or only now: the same balance.
              const once = refilled(state, rule, period.end).state;
              check(refilled(once, rule, t).state.balance === once.balance && once.balance === now.balance, where);
            }
            balance = modelRefill(rule, balance);
            period = at;
          }
          check(now.balance === balance && now.period === period.start && added === now.balance - state.balance, where);
          // Refilled once, it refills no more within its period.
          check(refilled(now, rule, t).state === now && refilled(now, rule, at.end - 1).added === 0, where);
          if (op.kind === 'spend') {
            const after = afterSpend(now, op.units);
            if (balance >= op.units) balance -= op.units;
            state = after ?? now;
          } else if (op.kind === 'change') {
            state = afterChange(now, op.change);
            balance = 'set' in op.change ? op.change.set : Math.max(0, balance + op.change.add);
          } else {
            state = now;
          }
          check(state.balance === balance, where);
        }
      }),
      { numRuns: runs(300) },
    );
    expect(periodsEnded).toBeGreaterThan(share(1_500));
    expect(februaries).toBeGreaterThan(share(60));
    expect(leapFebruaries).toBeGreaterThan(share(15));
    expect(runsOfPeriods).toBeGreaterThan(share(250));
    expect(onTheMillisecond).toBeGreaterThan(share(600));
  });

  it('a refund leaves the balance exactly as if its spend had never been made: replayed from scratch in time order without the refunded spends, every other spend as it was answered and refills of max(credits, balance) at each period end, the model ends on the same balance', () => {
    /*
     * Only top-ups that add, and refunds that arrive in their spend's period or the next: there the
     * rules promise exactness. A negative top-up clamps at zero and a `set` is absolute, so "as if
     * never spent" is not defined across them; and a refund arriving two periods on may come after
     * a second refill, which the rules let go: no request lasts a whole period (credit-balance.ts).
     * The model is asked after every step, not only at the end: a refund is exact once made.
     */
    type Event =
      | { readonly kind: 'spend'; readonly at: number; readonly units: number; readonly granted: boolean; refunded: boolean }
      | { readonly kind: 'add'; readonly at: number; readonly add: number };
    type ExactOp = { readonly kind: 'spend'; readonly units: number } | { readonly kind: 'refund'; readonly pick: number } | { readonly kind: 'add'; readonly add: number };
    const exactOpArb: fc.Arbitrary<ExactOp> = fc.oneof(
      { weight: 5, arbitrary: fc.integer({ min: 1, max: 25 }).map((units) => ({ kind: 'spend', units }) as const) },
      { weight: 4, arbitrary: fc.nat(1000).map((pick) => ({ kind: 'refund', pick }) as const) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }).map((add) => ({ kind: 'add', add }) as const) },
    );

    /** The model at `until`: the history from the first request on, refunded spends and refunds left out. */
    const replayed = (rule: CreditRule, start: number, events: readonly Event[], until: number): number => {
      let balance = initialOf(rule);
      let index = modelPeriod(rule.refill, start).index;
      for (const event of events) {
        const at = modelPeriod(rule.refill, event.at).index;
        if (at > index) balance = modelRefill(rule, balance);
        index = at;
        if (event.kind === 'add') balance += event.add;
        else if (event.granted && !event.refunded) {
          // Without the refunded spends the balance only holds more, so each granted spend still fits.
          check(balance >= event.units, () => `the model cannot take ${event.units} from ${balance}`);
          balance -= event.units;
        }
      }
      return modelPeriod(rule.refill, until).index > index ? modelRefill(rule, balance) : balance;
    };

    let sameRefunds = 0;
    let nextRefunds = 0;
    let partlyMadeGood = 0;
    fc.assert(
      fc.property(anyRuleArb, startArb, stepsArb(exactOpArb, forwardArb), (rule, start, steps) => {
        let state: CreditBalance = openingBalance(rule, start);
        const events: Event[] = [];
        const spentIn = new Map<Event, number>();
        let t = start;
        for (const { advance, op } of steps) {
          t = advanced(rule.refill, t, advance);
          const { state: now } = refilled(state, rule, t);
          if (op.kind === 'spend') {
            const after = afterSpend(now, op.units);
            const event: Event = { kind: 'spend', at: t, units: op.units, granted: after !== undefined, refunded: false };
            events.push(event);
            spentIn.set(event, now.period);
            state = after ?? now;
          } else if (op.kind === 'add') {
            events.push({ kind: 'add', at: t, add: op.add });
            state = afterChange(now, { add: op.add });
          } else {
            const index = modelPeriod(rule.refill, t).index;
            const refundable = events.filter(
              (event): event is Extract<Event, { kind: 'spend' }> =>
                event.kind === 'spend' && event.granted && !event.refunded && index - modelPeriod(rule.refill, event.at).index <= 1,
            );
            const spend = refundable[op.pick % Math.max(1, refundable.length)];
            state = now;
            if (spend !== undefined) {
              spend.refunded = true;
              const { state: after, added } = afterRefund(now, rule, spend.units, spentIn.get(spend)!);
              if (spentIn.get(spend) === now.period) sameRefunds++;
              else nextRefunds++;
              if (added > 0 && added < spend.units) partlyMadeGood++;
              state = after;
            }
          }
          const model = replayed(rule, start, events, t);
          check(state.balance === model, () => `${op.kind} at ${iso(t)}: the rules hold ${state.balance}, the model ${model}; history ${JSON.stringify(events)}`);
        }
      }),
      { numRuns: runs(500) },
    );
    expect(sameRefunds).toBeGreaterThan(share(600));
    expect(nextRefunds).toBeGreaterThan(share(400));
    // Refunds across a refill that made good some of the spend, not all or none.
    expect(partlyMadeGood).toBeGreaterThan(share(30));
  });

  it("the memory ledger's usage rows add up for any history (spends, refunds of any age, sets, top-ups that add or take away, clocks that lag): balance = initial + refilled + adjusted − spent + refunded, and its spends and refused count its granted and refused answers", () => {
    let rowsChecked = 0;
    fc.assert(
      fc.property(anyRuleArb, startArb, stepsArb(anyOpArb, laggingArb), (rule, start, steps) => {
        const ledger = new MemoryCreditLedger();
        const spends: Granted[] = [];
        let [granted, refused, spentUnits, refunds] = [0, 0, 0, 0];
        let t = start;
        for (const { advance, op } of steps) {
          t = advanced(rule.refill, t, advance);
          if (op.kind === 'spend') {
            const answer = ledger.spend('k', rule, op.units, t);
            if (answer.granted) {
              granted++;
              spentUnits += op.units;
              spends.push({ units: op.units, spentIn: answer.period });
            } else refused++;
          } else if (op.kind === 'refund') {
            const spend = spends.splice(op.pick % Math.max(1, spends.length), 1)[0];
            if (spend === undefined) continue;
            ledger.refund('k', rule, spend.units, spend.spentIn, t);
            refunds++;
          } else ledger.change('k', rule, op.change, t);
          const rows = ledger.usage({ subject: 'k' });
          rowsChecked += rows.length;
          const sum = (field: 'spent' | 'spends' | 'refused' | 'refunded' | 'refunds' | 'refilled' | 'adjusted'): number => rows.reduce((total, row) => total + row[field], 0);
          const { balance } = ledger.standing('k', rule, t);
          const where = (): string => `${op.kind} at ${iso(t)}: balance ${balance}, rows ${JSON.stringify(rows)}`;
          check(balance === initialOf(rule) + sum('refilled') + sum('adjusted') - sum('spent') + sum('refunded'), where);
          check(sum('spends') === granted && sum('refused') === refused && sum('spent') === spentUnits && sum('refunds') === refunds, where);
          check(rows.every((row) => row.refilled >= 0 && row.refunded >= 0 && row.refunded <= spentUnits), where);
        }
      }),
      { numRuns: runs(300) },
    );
    expect(rowsChecked).toBeGreaterThan(share(12_000));
  });

  it('spends of several instances in any interleaving, each on its own clock: the units granted never pass initial + refills + top-ups, and a spend is refused only when its units are more than the balance at its moment', () => {
    type Send = { readonly kind: 'spend'; readonly units: number } | { readonly kind: 'top-up'; readonly add: number };
    const sendArb: fc.Arbitrary<Send> = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 1, max: 20 }).map((units) => ({ kind: 'spend', units }) as const) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map((add) => ({ kind: 'top-up', add }) as const) },
    );
    const instanceArb = fc.record({
      // How far the instance's clock is off, and what it sends, each after its clock moved on.
      skew: fc.integer({ min: -5 * MINUTE, max: 5 * MINUTE }),
      sends: fc.array(fc.record({ advance: forwardArb, send: sendArb }), { minLength: 1, maxLength: 15 }),
    });
    let refusedSpends = 0;
    let lagging = 0;
    fc.assert(
      fc.property(
        anyRuleArb,
        startArb,
        fc.array(instanceArb, { minLength: 2, maxLength: 5 }),
        fc.array(fc.nat(4), { maxLength: 80 }),
        (rule, start, instances, order) => {
          const ledger = new MemoryCreditLedger();
          const clocks = instances.map(({ skew }) => start + Math.max(0, skew));
          const next = instances.map(() => 0);
          // The interleaving: instances in `order`, then the rest in turn; each sends in its own order.
          const turns = [...order.map((pick) => pick % instances.length), ...instances.flatMap(({ sends }, i) => sends.map(() => i))];
          let [grantedUnits, toppedUp, refills, lastPeriod] = [0, 0, 0, Number.NEGATIVE_INFINITY];
          let latest = Number.NEGATIVE_INFINITY;
          for (const i of turns) {
            const send = instances[i]!.sends[next[i]!];
            if (send === undefined) continue;
            next[i]!++;
            const t = (clocks[i] = advanced(rule.refill, clocks[i]!, send.advance));
            if (t < latest) lagging++;
            latest = Math.max(latest, t);
            const before = ledger.standing('k', rule, t).balance;
            const where = (): string => `instance ${i} at ${iso(t)}: balance ${before}, ${JSON.stringify(send.send)}`;
            /** Counted without the ledger's rows: a refill adds at most the credits, once per new period an answer names. */
            const answered = (period: number): void => {
              if (period > lastPeriod) {
                if (lastPeriod !== Number.NEGATIVE_INFINITY) refills++;
                lastPeriod = period;
              }
              check(period === lastPeriod, where);
            };
            if (send.send.kind === 'top-up') {
              toppedUp += send.send.add;
              const { after } = ledger.change('k', rule, { add: send.send.add }, t);
              answered(after.period);
              check(after.balance === before + send.send.add, where);
              continue;
            }
            const answer = ledger.spend('k', rule, send.send.units, t);
            answered(answer.period);
            check(answer.balance >= 0, where);
            if (answer.granted) {
              grantedUnits += send.send.units;
              check(answer.balance === before - send.send.units, where);
            } else {
              refusedSpends++;
              check(send.send.units > before && answer.balance === before, where);
            }
            check(grantedUnits <= initialOf(rule) + refills * rule.credits + toppedUp, () => `${where()}: granted ${grantedUnits} of ${refills} refills`);
          }
          const rows = ledger.usage({ subject: 'k' });
          const refilledUnits = rows.reduce((total, row) => total + row.refilled, 0);
          const { balance } = ledger.standing('k', rule, latest);
          // Nothing granted beyond what came in: what came in less what was granted is the balance left.
          check(grantedUnits === initialOf(rule) + refilledUnits + toppedUp - balance, () => `granted ${grantedUnits}, balance ${balance}, rows ${JSON.stringify(rows)}`);
        },
      ),
      { numRuns: runs(300) },
    );
    expect(refusedSpends).toBeGreaterThan(share(1_200));
    expect(lagging).toBeGreaterThan(share(2_000));
  });
});
