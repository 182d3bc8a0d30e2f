import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createQuotaState, decideQuota, peekQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy, RuleCosts } from '../../src/domain/quota/quota-rule.js';
import { check, expectSameDecision } from '../support/fast-assertions.js';
import { runs } from '../support/property-runs.js';
import { burstAndWindowRulesArb, ruleCostsArb, scheduleArb, smallBanArb } from '../../src/testing/quota-schedules.js';
import { ReferenceQuota } from '../../src/testing/reference-quota.js';

interface Request {
  readonly at: number;
  readonly cost: number | RuleCosts;
  readonly peek: boolean;
}

/**
 * Rules mixing windows and bursts, each enforced or in shadow, with or without a ban, and
 * requests of random costs per rule (0 included) at stepping times, some of them peeks; with
 * `stepsBack`, now and then a time earlier than the one before (a clock stepping back).
 */
const scenarioArb = (stepsBack: boolean) =>
  burstAndWindowRulesArb.chain((rules) =>
    fc.record({
      policy: fc.option(smallBanArb, { nil: undefined }).map((ban): QuotaPolicy => (ban === undefined ? { rules } : { rules, ban })),
      requests: scheduleArb(rules, { maxSteps: 200 }).chain((times) =>
        fc
          .array(
            fc.tuple(
              ruleCostsArb(rules),
              fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, fc.constant(true)),
              stepsBack ? fc.oneof({ arbitrary: fc.constant(0), weight: 8 }, fc.nat({ max: 200 })) : fc.constant(0),
            ),
            { minLength: times.length, maxLength: times.length },
          )
          .map((kinds) => times.map((at, i): Request => ({ at: Math.max(0, at - kinds[i]![2]), cost: kinds[i]![0], peek: kinds[i]![1] }))),
      ),
    }),
  );

const costUnder = (cost: number | RuleCosts, i: number): number => (typeof cost === 'number' ? cost : cost[i]!);

describe('quota engine with burst rules, against a reference token bucket', () => {
  it('decides and peeks every request like the reference model, whose bucket is GCRA’s theoretical arrival time in exact rationals with room and times found by counting and bisection: rules mixing windows and bursts, enforced and shadow, per-rule costs, with or without a ban, the clock stepping back now and then', () => {
    fc.assert(
      fc.property(scenarioArb(true), ({ policy, requests }) => {
        const state = createQuotaState(policy);
        const reference = new ReferenceQuota();
        for (const { at, cost, peek } of requests) {
          if (peek) expectSameDecision(peekQuota(state, policy, at, cost), reference.peek(policy, at, cost));
          else expectSameDecision(decideQuota(state, policy, at, cost), reference.decide(policy, at, cost));
        }
      }),
      { numRuns: runs(1500) },
    );
  });

  it('in any span of d ms an enforced burst rule admits at most limit + floor(d * limit / windowMs) units, whatever the other rules, the shadows and the costs', () => {
    let spansAtTheBound = 0;
    fc.assert(
      fc.property(scenarioArb(false), ({ policy, requests }) => {
        const state = createQuotaState(policy);
        const { rules } = policy;
        // Per rule, [time, units] of each admitted request that matched it.
        const admitted: [number, number][][] = rules.map(() => []);
        for (const { at, cost, peek } of requests) {
          if (peek || decideQuota(state, policy, at, cost).verdict !== 'admitted') continue;
          rules.forEach((rule, i) => {
            const units = costUnder(cost, i);
            if (units === 0 || rule.kind !== 'burst' || rule.mode === 'shadow') return;
            const list = admitted[i]!;
            list.push([at, units]);
            // Every span ending with this request and starting at an earlier admission.
            let spanned = 0;
            for (let from = list.length - 1; from >= 0; from--) {
              const [start, counted] = list[from]!;
              spanned += counted;
              const bound = rule.limit + Math.floor(((at - start) * rule.limit) / rule.windowMs);
              check(spanned <= bound, () => `rule ${rule.name} (${rule.limit} in ${rule.windowMs} ms) admitted ${spanned} units from ${start} to ${at}, over ${bound}`);
              if (spanned === bound && at > start) spansAtTheBound++;
            }
          });
        }
      }),
      { numRuns: runs(1000) },
    );
    // The bound is tight: a full bucket then its refill reach it.
    expect(spansAtTheBound).toBeGreaterThan(0);
  });
});
