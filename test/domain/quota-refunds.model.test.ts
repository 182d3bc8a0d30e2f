import fc from 'fast-check';
import { describe, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import { createQuotaState, decideQuota, refundQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy, QuotaRule, RuleCosts } from '../../src/domain/quota/quota-rule.js';
import { RING } from '../../src/domain/quota/sliding-window-counter.js';
import { check, expectSameDecision } from '../support/fast-assertions.js';
import { ManualClock } from '../support/manual-clock.js';
import { runs } from '../support/property-runs.js';
import { burstAndWindowRulesArb, modedRulesArb, ruleCostsArb, scheduleArb, smallBanArb, smallBurstRuleArb, smallRulesArb } from '../../src/testing/quota-schedules.js';
import { ReferenceQuotaStore } from '../../src/testing/reference-quota.js';

/*
 * Refunds against the reference model (test/support/reference-quota.ts, which keeps every unit's
 * timestamp and takes a refund's units out of its bucket's list): the engine, through the memory
 * store that keeps its states, must answer every request alike whatever was refunded, when and
 * how often; and, read off the engine's own counters, a refund must stay in its granule, never
 * take a count below zero, and never let a rule keep more than its limit in a rolling window.
 */

type Step =
  | { readonly kind: 'decide' | 'peek'; readonly cost: number | RuleCosts }
  /** Gives back an earlier admission (`pick` among them, modulo their number): its costs, or `units` when set. */
  | { readonly kind: 'refund'; readonly pick: number; readonly units: RuleCosts | undefined }
  | { readonly kind: 'reset' };

interface Request {
  readonly at: number;
  readonly subject: number;
  readonly policy: QuotaPolicy;
  readonly step: Step;
}

const costsUnder = (rules: readonly QuotaRule[], cost: number | RuleCosts): RuleCosts => rules.map((_, i) => (typeof cost === 'number' ? cost : cost[i]!));

/** Units from 0 to each rule's limit: as much as a request spent, more, or none. */
const unitsArb = (rules: readonly QuotaRule[]): fc.Arbitrary<RuleCosts> => fc.tuple(...rules.map((rule) => fc.integer({ min: 0, max: rule.limit })));

const stepArb = (rules: readonly QuotaRule[], costs: fc.Arbitrary<number | RuleCosts>): fc.Arbitrary<Step> =>
  fc.oneof(
    { arbitrary: costs.map((cost): Step => ({ kind: 'decide', cost })), weight: 8 },
    { arbitrary: costs.map((cost): Step => ({ kind: 'peek', cost })), weight: 2 },
    // The latest admission (pick 0 counts from the newest) or any earlier one; what it spent, or other units.
    {
      arbitrary: fc
        .record({ pick: fc.oneof(fc.constant(0), fc.nat()), units: fc.option(unitsArb(rules), { nil: undefined, freq: 3 }) })
        .map((refund): Step => ({ kind: 'refund', ...refund })),
      weight: 5,
    },
    { arbitrary: fc.constant<Step>({ kind: 'reset' }), weight: 1 },
  );

/**
 * Requests of two subjects under a policy, now and then under the same windows with other limits
 * or modes (the state carries over) or under other windows (the subject starts over), at times
 * with bursts, granule and window edges, idle gaps and clock steps back; refunds of earlier
 * admissions, at once or late, of what they spent or of other units; resets.
 */
const scheduleOfArb = (
  maxRequests: number,
  rulesArb: fc.Arbitrary<readonly QuotaRule[]> = fc.oneof(smallRulesArb, modedRulesArb),
): fc.Arbitrary<readonly Request[]> =>
  fc
    .tuple(rulesArb, fc.option(smallBanArb, { nil: undefined }))
    .chain(([rules, ban]) => {
      const main: QuotaPolicy = ban === undefined ? { rules } : { rules, ban };
      const otherLimits: QuotaPolicy = { ...main, rules: rules.map((rule) => ({ ...rule, limit: rule.limit + 1 })) };
      const otherModes: QuotaPolicy = { ...main, rules: rules.map((rule): QuotaRule => ({ ...rule, mode: rule.mode === 'shadow' ? 'enforce' : 'shadow' })) };
      const otherWindows: QuotaPolicy = { ...main, rules: rules.map((rule) => ({ ...rule, windowMs: rule.windowMs * 2 })) };
      const shortest = Math.min(...rules.map((rule) => rule.windowMs));
      const sized = { minLength: maxRequests, maxLength: maxRequests };
      return fc.record({
        times: scheduleArb(rules, { maxSteps: maxRequests, maxBurst: 3 }),
        steps: fc.array(stepArb(rules, ruleCostsArb(rules)), sized),
        subjects: fc.array(fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, fc.constant(1)), sized),
        stepsBack: fc.array(fc.oneof({ arbitrary: fc.constant(0), weight: 8 }, fc.nat({ max: 2 * shortest })), sized),
        policies: fc.array(
          fc.oneof({ arbitrary: fc.constant(main), weight: 12 }, fc.constant(otherLimits), fc.constant(otherModes), fc.constant(otherWindows)),
          sized,
        ),
      });
    })
    .map(({ times, steps, subjects, stepsBack, policies }) =>
      times.slice(0, steps.length).map((at, i) => ({ at: Math.max(0, at - stepsBack[i]!), subject: subjects[i]!, policy: policies[i]!, step: steps[i]! })),
    );

interface Admitted {
  readonly subject: string;
  readonly policy: QuotaPolicy;
  readonly costs: RuleCosts;
  readonly decision: QuotaDecision;
}

describe('quota refunds against the reference model', () => {
  it('decides and peeks every request like the reference model whatever was refunded (at once or late, what a request spent, more, or twice), across clock steps back, plan changes and resets, windows and burst buckets alike', () => {
    fc.assert(
      fc.property(scheduleOfArb(120, fc.oneof(smallRulesArb, modedRulesArb, burstAndWindowRulesArb)), (requests) => {
        const clock = new ManualClock(0);
        // Never swept: with clocks stepping back, forgetting an idle subject may change a later decision.
        const store = new MemoryQuotaStore(clock, { sweepEvery: Number.POSITIVE_INFINITY });
        const reference = new ReferenceQuotaStore();
        const admitted: Admitted[] = [];
        for (const { at, subject: n, policy, step } of requests) {
          clock.set(at);
          const subject = `s${n}`;
          switch (step.kind) {
            case 'decide': {
              const decision = store.decide(subject, policy, step.cost);
              expectSameDecision(decision, reference.decide(subject, policy, at, step.cost));
              if (decision.verdict === 'admitted') admitted.push({ subject, policy, costs: costsUnder(policy.rules, step.cost), decision });
              break;
            }
            case 'peek':
              expectSameDecision(store.peek(subject, policy, step.cost), reference.peek(subject, policy, at, step.cost));
              break;
            case 'reset':
              store.reset(subject);
              reference.reset(subject);
              break;
            case 'refund': {
              if (admitted.length === 0) break;
              const earlier = admitted[admitted.length - 1 - (step.pick % admitted.length)]!;
              // A refund names the policy its request was decided under, as the HTTP edge does.
              const units = step.units ?? earlier.costs;
              store.refund(earlier.subject, earlier.policy, units, earlier.decision);
              reference.refund(earlier.subject, earlier.policy, at, units, earlier.decision);
              // What the subject is left with, read without counting.
              expectSameDecision(store.peek(earlier.subject, policy), reference.peek(earlier.subject, policy, at));
              break;
            }
          }
        }
      }),
      { numRuns: runs(1_500) },
    );
  });

  it('kept units (admitted less refunded) in any rolling window never exceed an enforced rule’s limit, with each admission refunded at most once, at once or late, across clock steps back', () => {
    fc.assert(
      fc.property(
        scheduleOfArb(150).map((requests) => requests.map((request) => ({ ...request, subject: 0, policy: requests[0]!.policy }))),
        (requests) => {
          const policy = requests[0]?.policy;
          if (policy === undefined) return;
          const { rules } = policy;
          const clock = new ManualClock(0);
          const store = new MemoryQuotaStore(clock, { sweepEvery: Number.POSITIVE_INFINITY });
          // Per admission: when it was counted and what it still keeps under each rule.
          const kept: { readonly decision: QuotaDecision; readonly countedAt: number; readonly units: number[]; refunded: boolean }[] = [];
          // The latest time the store counted to, as far as its answers tell (a ban's do not).
          let countedUpTo = Number.NEGATIVE_INFINITY;
          for (const { at, step } of requests) {
            clock.set(at);
            if (step.kind === 'refund') {
              const open = kept.filter((admission) => !admission.refunded);
              const chosen = open[open.length - 1 - (step.pick % Math.max(1, open.length))];
              if (chosen === undefined) continue;
              // At most what the request spent: the edge gives back a request's own cost, once.
              const units = chosen.units.map((spent, i) => Math.min(spent, step.units?.[i] ?? spent));
              store.refund('s', policy, units, chosen.decision);
              chosen.refunded = true;
              const now = Math.max(at, countedUpTo);
              rules.forEach((rule, i) => {
                const granule = rule.windowMs / 60;
                // Still counted: the store takes it back from the bucket that counted it.
                if (Math.floor(chosen.countedAt / granule) > Math.floor(now / granule) - RING) chosen.units[i]! -= units[i]!;
              });
              continue;
            }
            if (step.kind !== 'decide') continue;
            const decision = store.decide('s', policy, step.cost);
            if (decision.verdict !== 'banned') countedUpTo = Math.max(countedUpTo, at);
            if (decision.verdict !== 'admitted') continue;
            const countedAt = decision.countedAt ?? decision.decidedAt;
            const costs = costsUnder(rules, step.cost);
            kept.push({ decision, countedAt, units: [...costs], refunded: false });
            rules.forEach((rule, i) => {
              if (costs[i] === 0 || rule.mode === 'shadow') return;
              let inWindow = 0;
              for (const admission of kept) if (admission.countedAt > countedAt - rule.windowMs) inWindow += admission.units[i]!;
              check(inWindow <= rule.limit, () => `rule ${rule.name} keeps ${inWindow} units within ${rule.windowMs} ms before ${countedAt}, over its limit ${rule.limit}`);
            });
          }
        },
      ),
      { numRuns: runs(1_500) },
    );
  });
});

describe('burst refunds', () => {
  it('the units a burst bucket keeps (admitted less refunded, in unit-milliseconds) in any span of d ms never pass limit × windowMs + d × limit: a refund gives back only what has not drained', () => {
    fc.assert(
      fc.property(
        fc.tuple(smallBurstRuleArb('b'), fc.array(fc.tuple(fc.nat({ max: 400 }), fc.integer({ min: 1, max: 6 }), fc.option(fc.nat({ max: 300 }), { freq: 2 })), { maxLength: 80 })),
        ([rule, steps]) => {
          const policy: QuotaPolicy = { rules: [rule] };
          const clock = new ManualClock(0);
          const store = new MemoryQuotaStore(clock, { sweepEvery: Number.POSITIVE_INFINITY });
          const kept: { readonly at: number; unitMs: number }[] = [];
          let now = 0;
          for (const [step, want, refundAfter] of steps) {
            now += step;
            clock.set(now);
            const cost = Math.min(want, rule.limit);
            const decision = store.decide('s', policy, [cost]);
            if (decision.verdict !== 'admitted') continue;
            const admission = { at: now, unitMs: cost * rule.windowMs };
            kept.push(admission);
            if (refundAfter !== null) {
              // Given back at once or later, before the next request: what has not drained of it by then.
              clock.set(now + refundAfter);
              store.refund('s', policy, [cost], decision);
              admission.unitMs -= Math.max(0, cost * rule.windowMs - refundAfter * rule.limit);
              now += refundAfter;
            }
          }
          for (let i = 0; i < kept.length; i++) {
            let sum = 0;
            for (let j = i; j < kept.length; j++) {
              sum += kept[j]!.unitMs;
              const bound = rule.limit * rule.windowMs + (kept[j]!.at - kept[i]!.at) * rule.limit;
              check(sum <= bound, () => `${sum} unit-ms kept from ${kept[i]!.at} to ${kept[j]!.at}, over ${bound}`);
            }
          }
        },
      ),
      { numRuns: runs(1_000) },
    );
  });
});

/** Rule `rule`'s ring of bucket counts, bucket b in cell b mod RING (sliding-window-counter.ts). */
const ringOf = (cells: Uint32Array, rule: number, ruleCount: number): Uint32Array =>
  cells.subarray(2 * ruleCount + RING * rule, 2 * ruleCount + RING * (rule + 1));

/** Decisions at stepping times and, between them, refunds of any units for any time up to a window back, a granule ahead, or an admission's. */
const engineScheduleArb = modedRulesArb.chain((rules) =>
  fc.record({
    rules: fc.constant(rules),
    times: scheduleArb(rules, { maxSteps: 50, maxBurst: 3 }).map((times) => times.slice(0, 150)),
    refunds: fc.array(
      fc.record({
        units: unitsArb(rules),
        back: fc.oneof(fc.nat({ max: Math.max(...rules.map((rule) => rule.windowMs)) }), fc.constant(0), fc.integer({ min: -1_000, max: -1 })),
        costs: ruleCostsArb(rules),
      }),
      { minLength: 150, maxLength: 150 },
    ),
  }),
);

describe('a refund on the engine’s own counters', () => {
  it('a refund never lands in another granule: under each rule only the bucket of the time it names loses units, by at most what was asked', () => {
    fc.assert(
      fc.property(engineScheduleArb, ({ rules, times, refunds }) => {
        const policy: QuotaPolicy = { rules };
        const state = createQuotaState(policy);
        times.forEach((at, n) => {
          const { units, back, costs } = refunds[n]!;
          decideQuota(state, policy, at, costs);
          // Times are never negative, as a store's clock.
          const countedAt = Math.max(0, at - back);
          const before = state.cells.slice();
          refundQuota(state, policy, at, units, countedAt);
          rules.forEach((rule, i) => {
            const own = Math.floor(countedAt / (rule.windowMs / 60)) % RING;
            const [was, is] = [ringOf(before, i, rules.length), ringOf(state.cells, i, rules.length)];
            for (let cell = 0; cell < RING; cell++) {
              if (cell === own) check(is[cell]! <= was[cell]! && was[cell]! - is[cell]! <= units[i]!, () => `rule ${i}: its bucket went from ${was[cell]} to ${is[cell]}, asked ${units[i]}`);
              else check(is[cell] === was[cell], () => `rule ${i}: a refund for ${countedAt} changed ring cell ${cell} (its own is ${own})`);
            }
          });
        });
      }),
      { numRuns: runs(1_000) },
    );
  });

  it('a refund never takes a count below zero: refunded twice, for more than was counted, or for a time never counted, every bucket keeps zero or more and each rule counts exactly the sum of its buckets', () => {
    fc.assert(
      fc.property(engineScheduleArb, ({ rules, times, refunds }) => {
        const policy: QuotaPolicy = { rules };
        const state = createQuotaState(policy);
        // What each rule has counted in all: no bucket may hold more (a count taken below zero wraps round to 2^32 - 1).
        const counted = rules.map(() => 0);
        times.forEach((at, n) => {
          const { units, back, costs } = refunds[n]!;
          if (decideQuota(state, policy, at, costs).verdict === 'admitted') costsUnder(rules, costs).forEach((cost, i) => (counted[i]! += cost));
          // Twice: the second finds less, or nothing, left to take.
          refundQuota(state, policy, at, units, Math.max(0, at - back));
          refundQuota(state, policy, at, units, Math.max(0, at - back));
          rules.forEach((_, i) => {
            const ring = ringOf(state.cells, i, rules.length);
            const sum = ring.reduce((total, count) => total + count, 0);
            check(sum <= counted[i]!, () => `rule ${i}: its buckets hold ${sum}, more than the ${counted[i]} units it ever counted`);
            check(state.cells[2 * i] === sum, () => `rule ${i} counts ${state.cells[2 * i]} but its buckets hold ${sum}`);
          });
        });
      }),
      { numRuns: runs(1_000) },
    );
  });
});
