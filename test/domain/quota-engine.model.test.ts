import fc from 'fast-check';
import { describe, it } from 'vitest';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { STANDARD_PLANS, enterprisePlan } from '../../src/domain/quota/plan.js';
import { createQuotaState, decideQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import { scheduleArb, smallBanArb, smallRulesArb } from '../support/quota-schedules.js';
import { expectSameDecision } from '../support/fast-assertions.js';
import { ReferenceQuota } from '../support/reference-quota.js';

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
      { numRuns: 1500 },
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
      { numRuns: 150 },
    );
  });
});
