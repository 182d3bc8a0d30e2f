import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createQuotaState, decideQuota, peekQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { QuotaPolicy, QuotaRule, RuleCosts } from '../../src/domain/quota/quota-rule.js';
import { check, expectSameDecision } from '../support/fast-assertions.js';
import { runs } from '../support/property-runs.js';
import { modedRulesArb, ruleCostsArb, scheduleArb, smallBanArb } from '../../src/testing/quota-schedules.js';
import { ReferenceQuota } from '../../src/testing/reference-quota.js';

interface Request {
  readonly at: number;
  readonly cost: number | RuleCosts;
  readonly peek: boolean;
}

/**
 * Several rules, each enforced or in shadow, with or without a ban, and requests of random
 * costs per rule (0 included) at stepping times, some of them peeks.
 */
const scenarioArb = modedRulesArb.chain((rules) =>
  fc.record({
    policy: fc.option(smallBanArb, { nil: undefined }).map((ban): QuotaPolicy => (ban === undefined ? { rules } : { rules, ban })),
    requests: scheduleArb(rules, { maxSteps: 200 }).chain((times) =>
      fc
        .array(fc.tuple(ruleCostsArb(rules), fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, fc.constant(true))), {
          minLength: times.length,
          maxLength: times.length,
        })
        .map((kinds) => times.map((at, i): Request => ({ at, cost: kinds[i]![0], peek: kinds[i]![1] }))),
    ),
  }),
);

const costUnder = (cost: number | RuleCosts, i: number): number => (typeof cost === 'number' ? cost : cost[i]!);

const isEnforced = (rule: QuotaRule): boolean => rule.mode !== 'shadow';

describe('quota engine with per-rule costs and shadow rules, against the reference model', () => {
  it('decides and peeks every request like the reference model: admitted only when every enforced rule it matches has room for its cost there, then counted by every rule it matches (shadow ones included), cost-0 rules neither deciding nor counting, the shadow rules without room reported, a refusal retried when every refusing enforced rule has room', () => {
    fc.assert(
      fc.property(scenarioArb, ({ policy, requests }) => {
        const state = createQuotaState(policy);
        const reference = new ReferenceQuota();
        for (const { at, cost, peek } of requests) {
          if (peek) expectSameDecision(peekQuota(state, policy, at, cost), reference.peek(policy, at, cost));
          else expectSameDecision(decideQuota(state, policy, at, cost), reference.decide(policy, at, cost));
        }
      }),
      { numRuns: runs(1000) },
    );
  });

  it('never lets an enforced rule admit more than its limit in any rolling window, whatever the shadow rules and the costs', () => {
    fc.assert(
      fc.property(scenarioArb, ({ policy, requests }) => {
        const state = createQuotaState(policy);
        const { rules } = policy;
        // Per rule, [time, units] of each admitted request that matched it.
        const admitted: [number, number][][] = rules.map(() => []);
        for (const { at, cost, peek } of requests) {
          if (peek) continue;
          if (decideQuota(state, policy, at, cost).verdict !== 'admitted') continue;
          rules.forEach((rule, i) => {
            const units = costUnder(cost, i);
            if (units === 0 || !isEnforced(rule)) return;
            admitted[i]!.push([at, units]);
            let inWindow = 0;
            for (const [time, counted] of admitted[i]!) if (time > at - rule.windowMs) inWindow += counted;
            check(inWindow <= rule.limit, () => `rule ${rule.name} admitted ${inWindow} units within ${rule.windowMs} ms before ${at}, over its limit ${rule.limit}`);
          });
        }
      }),
      { numRuns: runs(1000) },
    );
  });

  it('shadow rules never refuse: every answer (verdict, retry, strikes, bans, and the enforced rules’ remaining and reset) is the one the enforced rules alone give', () => {
    fc.assert(
      fc.property(scenarioArb, ({ policy, requests }) => {
        const { rules } = policy;
        const enforcedAt = rules.flatMap((rule, i) => (isEnforced(rule) ? [i] : []));
        const alone: QuotaPolicy = { ...policy, rules: enforcedAt.map((i) => rules[i]!) };
        const withShadows = createQuotaState(policy);
        const enforcedOnly = createQuotaState(alone);
        const enforcedPart = (decision: QuotaDecision): QuotaDecision => ({
          verdict: decision.verdict,
          decidedAt: decision.decidedAt,
          retryAt: decision.retryAt,
          remaining: enforcedAt.map((i) => decision.remaining[i]!),
          resetAt: enforcedAt.map((i) => decision.resetAt[i]!),
          ...(decision.strikes === undefined ? {} : { strikes: decision.strikes }),
        });
        for (const { at, cost, peek } of requests) {
          const aloneCost = typeof cost === 'number' ? cost : enforcedAt.map((i) => cost[i]!);
          const decide = peek ? peekQuota : decideQuota;
          const full = decide(withShadows, policy, at, cost);
          expectSameDecision(enforcedPart(full), decide(enforcedOnly, alone, at, aloneCost));
          for (const i of full.shadowed ?? []) check(!isEnforced(rules[i]!), () => `enforced rule ${i} reported as shadowed`);
        }
      }),
      { numRuns: runs(1000) },
    );
  });

  it('refuses a cost that is not an integer from 0 to each rule’s limit, or not one per rule, with a RangeError and nothing counted', () => {
    const policy: QuotaPolicy = {
      rules: [
        { name: 'all', limit: 5, windowMs: 60_000 },
        { name: 'search', limit: 2, windowMs: 60_000, mode: 'shadow' },
      ],
    };
    const state = createQuotaState(policy);
    for (const cost of [[1, 3], [6, 0], [-1, 0], [0.5, 0], [1], [1, 1, 1], 3, -1, Number.NaN]) {
      expect(() => decideQuota(state, policy, 0, cost)).toThrow(RangeError);
      expect(() => peekQuota(state, policy, 0, cost)).toThrow(RangeError);
    }
    expect(decideQuota(state, policy, 0, [0, 0])).toEqual({ verdict: 'admitted', decidedAt: 0, remaining: [5, 2], resetAt: [0, 0], retryAt: 0 });
  });
});
