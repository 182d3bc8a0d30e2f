import fc from 'fast-check';
import { describe, it } from 'vitest';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { STANDARD_PLANS, enterprisePlan } from '../../src/domain/quota/plan.js';
import { createQuotaState, decideQuota, peekQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import { scheduleArb, smallBanArb, smallRulesArb } from '../../src/testing/quota-schedules.js';
import { expectSameDecision } from '../support/fast-assertions.js';
import { ReferenceQuota } from '../../src/testing/reference-quota.js';
import { runs } from '../support/property-runs.js';

const matchesReference = (policy: QuotaPolicy, times: readonly number[]): void => {
  const state = createQuotaState(policy);
  const reference = new ReferenceQuota();
  for (const at of times) expectSameDecision(decideQuota(state, policy, at), reference.decide(policy, at));
};

describe('quota engine against a reference model of exact timestamps and the bucket rule', () => {
  it('decides like the reference on long random runs of small rules, with and without bans', () => {
    fc.assert(
      fc.property(
        smallRulesArb.chain((rules) =>
          fc.record({
            rules: fc.constant(rules),
            ban: fc.option(smallBanArb, { nil: undefined }),
            times: scheduleArb(rules, { maxSteps: 600 }),
          }),
        ),
        ({ rules, ban, times }) => matchesReference(ban === undefined ? { rules } : { rules, ban }, times),
      ),
      { numRuns: runs(1500) },
    );
  });

  it('decides like the reference on the real plans with the default ban', () => {
    const plans = [STANDARD_PLANS.free, enterprisePlan(5, 40), enterprisePlan(1, 3)];
    fc.assert(
      fc.property(
        fc.constantFrom(...plans).chain((plan) =>
          fc.record({
            policy: fc.constant<QuotaPolicy>({ rules: plan.rules, ban: DEFAULT_BAN_POLICY }),
            times: scheduleArb(plan.rules, { maxSteps: 300, maxBurst: 20 }),
          }),
        ),
        ({ policy, times }) => matchesReference(policy, times),
      ),
      { numRuns: runs(150) },
    );
  });

  it('decides and peeks like the reference when requests weigh from 1 to the smallest limit and peeks come between them, a peek counting the strikes within the strike window as the reference does', () => {
    fc.assert(
      fc.property(
        smallRulesArb.chain((rules) => {
          const smallest = Math.min(...rules.map((rule) => rule.limit));
          return fc.record({
            rules: fc.constant(rules),
            ban: fc.option(smallBanArb, { nil: undefined }),
            requests: scheduleArb(rules, { maxSteps: 400 }).chain((times) =>
              fc.tuple(
                fc.constant(times),
                fc.array(fc.record({ cost: fc.integer({ min: 1, max: smallest }), peek: fc.boolean() }), { minLength: times.length, maxLength: times.length }),
              ),
            ),
          });
        }),
        ({ rules, ban, requests: [times, kinds] }) => {
          const policy: QuotaPolicy = ban === undefined ? { rules } : { rules, ban };
          const state = createQuotaState(policy);
          const reference = new ReferenceQuota();
          times.forEach((at, i) => {
            const { cost, peek } = kinds[i]!;
            if (peek) expectSameDecision(peekQuota(state, policy, at, cost), reference.peek(policy, at, cost));
            else expectSameDecision(decideQuota(state, policy, at, cost), reference.decide(policy, at, cost));
          });
        },
      ),
      { numRuns: runs(1500) },
    );
  });
});
