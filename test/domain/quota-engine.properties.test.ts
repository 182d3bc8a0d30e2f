import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import { type QuotaState, createQuotaState, decideQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy, QuotaRule } from '../../src/domain/quota/quota-rule.js';
import { cloneQuotaState } from '../support/clone-quota-state.js';
import { check, expectSameDecision } from '../support/fast-assertions.js';
import { ManualClock } from '../support/manual-clock.js';
import { scenarioArb, scheduleArb, smallBanArb, smallRulesArb } from '../../src/testing/quota-schedules.js';
import { runs, share } from '../support/property-runs.js';

const granule = (rule: QuotaRule): number => rule.windowMs / 60;
const UNLIMITED = 0xffff_ffff;

interface Step {
  readonly at: number;
  readonly decision: QuotaDecision;
  /** The subject's state just after the decision. */
  readonly after: QuotaState;
}

const run = (policy: QuotaPolicy, times: readonly number[], keepStates = false): Step[] => {
  const state = createQuotaState(policy);
  return times.map((at) => {
    const decision = decideQuota(state, policy, at);
    return { at, decision, after: keepStates ? cloneQuotaState(state) : state };
  });
};

const admittedTimes = (steps: readonly Step[]): number[] =>
  steps.filter((step) => step.decision.verdict === 'admitted').map((step) => step.at);

/** The most of the sorted `times` that fall into one window [s, s + length). */
const mostInAnyWindow = (times: readonly number[], length: number): number => {
  let most = 0;
  let first = 0;
  times.forEach((time, i) => {
    while (time - times[first]! >= length) first++;
    most = Math.max(most, i - first + 1);
  });
  return most;
};

/** How many of the sorted `times` are later than `after`. */
const countSince = (times: readonly number[], after: number): number => {
  let count = 0;
  while (count < times.length && times[times.length - 1 - count]! > after) count++;
  return count;
};

/** How many requests at `at` the subject gets, trying from a copy of `state`, at most `cap`. */
const admissionsAt = (state: QuotaState, policy: QuotaPolicy, at: number, cap: number): number => {
  const probe = cloneQuotaState(state);
  let admitted = 0;
  while (admitted < cap && decideQuota(probe, policy, at).verdict === 'admitted') admitted++;
  return admitted;
};

/** `policy` with every rule but `index` out of the way, to probe one rule alone. */
const onlyRule = (policy: QuotaPolicy, index: number): QuotaPolicy => ({
  rules: policy.rules.map((rule, i) => (i === index ? rule : { ...rule, limit: UNLIMITED })),
});

describe('quota engine properties', () => {
  it('never admits more than the limit in any rolling window of any rule', () => {
    fc.assert(
      fc.property(scenarioArb(true), ({ policy, times }) => {
        const admitted = admittedTimes(run(policy, times));
        for (const rule of policy.rules) expect(mostInAnyWindow(admitted, rule.windowMs)).toBeLessThanOrEqual(rule.limit);
      }),
      { numRuns: runs(3000) },
    );
  });

  it("never denies a schedule that puts at most the limit into every window of the rule's length plus one granule", () => {
    fc.assert(
      fc.property(scenarioArb(true), ({ policy, times }) => {
        // Keep the most of the schedule that the condition allows.
        const kept: number[] = [];
        for (const at of times) {
          const fits = policy.rules.every((rule) => countSince(kept, at - rule.windowMs - granule(rule)) < rule.limit);
          if (fits) kept.push(at);
        }
        for (const { at, decision } of run(policy, kept)) check(decision.verdict === 'admitted', () => `denied at ${at}`);
      }),
      { numRuns: runs(3000) },
    );
  });

  it('a request at the Retry-After a 429 points to is admitted when nothing else spent the quota, and is at most one granule plus one second later than exact', () => {
    let refusals = 0;
    fc.assert(
      fc.property(scenarioArb(true), ({ policy, times }) => {
        const admitted: number[] = [];
        for (const { at, decision, after } of run(policy, times, true)) {
          if (decision.verdict === 'admitted') admitted.push(at);
          if (decision.verdict !== 'rate_limited') continue;
          refusals++;
          // Exact: when enough admitted timestamps have left (at - windowMs, at] for every rule.
          let exact = at;
          let latestAllowed = at;
          for (const rule of policy.rules) {
            const inWindow = countSince(admitted, at - rule.windowMs);
            const ruleExact = inWindow >= rule.limit ? admitted[admitted.length - rule.limit]! + rule.windowMs : at;
            exact = Math.max(exact, ruleExact);
            latestAllowed = Math.max(latestAllowed, ruleExact + granule(rule));
          }
          const toldAt = at + 1000 * Math.ceil((decision.retryAt - at) / 1000);
          const { retryAt } = decision;
          const where = (): string => `refused at ${at}: retryAt ${retryAt}, exact ${exact}`;
          check(retryAt > at && retryAt >= exact, where);
          check(retryAt <= latestAllowed && toldAt < latestAllowed + 1000, where);
          check(admissionsAt(after, policy, retryAt, 1) === 1, where);
          check(admissionsAt(after, policy, toldAt, 1) === 1, where);
          // And not one millisecond earlier: it is the earliest time the engine admits.
          check(admissionsAt(after, policy, retryAt - 1, 1) === 0, where);
        }
      }),
      { numRuns: runs(3000) },
    );
    expect(refusals).toBeGreaterThan(share(30_000));
  });

  it('denied requests consume no quota', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ policy, times }) => {
        const all = run(policy, times).filter((step) => step.decision.verdict === 'admitted');
        const onlyAdmitted = run(
          policy,
          all.map((step) => step.at),
        );
        onlyAdmitted.forEach((step, i) => expectSameDecision(step.decision, all[i]!.decision));
      }),
      { numRuns: runs(3000) },
    );
  });

  it('Remaining equals what the next requests can actually get', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ policy, times }) => {
        for (const { at, decision, after } of run(policy, times, true)) {
          const where = (): string => `after ${decision.verdict} at ${at}: remaining ${decision.remaining.join()}`;
          check(admissionsAt(after, policy, at, UNLIMITED) === Math.min(...decision.remaining), where);
          policy.rules.forEach((rule, i) => {
            check(admissionsAt(after, onlyRule(policy, i), at, rule.limit + 1) === decision.remaining[i], where);
          });
        }
      }),
      { numRuns: runs(1500) },
    );
  });

  it('Reset is when Remaining next rises', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ policy, times }) => {
        for (const { at, decision, after } of run(policy, times, true)) {
          policy.rules.forEach((rule, i) => {
            const remaining = decision.remaining[i]!;
            const resetAt = decision.resetAt[i]!;
            const probe = (when: number): number => admissionsAt(after, onlyRule(policy, i), when, rule.limit + 1);
            const where = (): string => `rule ${i} after ${at}: remaining ${remaining}, reset ${resetAt}`;
            if (resetAt === at) {
              // Counts nothing: remaining is already the whole limit.
              check(remaining === rule.limit, where);
              return;
            }
            check(resetAt > at, where);
            check(probe(resetAt - 1) === remaining, where);
            check(probe(resetAt) > remaining, where);
          });
        }
      }),
      { numRuns: runs(1500) },
    );
  });

  describe('bans', () => {
    // A 24-minute granule keeps every refusal's Retry-After running through the strikes.
    const slowRule: QuotaRule = { name: 'day', limit: 2, windowMs: 60 * 24_000 };
    const strikeArb = fc
      .record({ ban: smallBanArb, limit: fc.integer({ min: 1, max: 3 }), start: fc.nat({ max: 10_000_000 }) })
      .map(({ ban, limit, start }) => ({
        // The ban outlasts every count and Retry-After, so the key is admitted when it ends.
        policy: {
          rules: [{ ...slowRule, limit }],
          ban: { ...ban, strikeWindowMs: ban.strikeWindowMs * 30, banMs: ban.banMs + 61 * 24_000 + 1000 },
        },
        start,
      }));

    it('the configured strikes within the configured period ban the key for the configured length, then it recovers', () => {
      fc.assert(
        fc.property(
          strikeArb,
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
          ({ policy, start }, spacing, duringBan) => {
            const { strikes, strikeWindowMs, banMs } = policy.ban;
            const state = createQuotaState(policy);
            const limit = policy.rules[0]!.limit;
            for (let i = 0; i < limit; i++) expect(decideQuota(state, policy, start).verdict).toBe('admitted');
            expect(decideQuota(state, policy, start).verdict).toBe('rate_limited');
            // `strikes` strikes, the first and the last less than strikeWindowMs apart.
            const gap = strikes === 1 ? 0 : Math.floor((spacing * (strikeWindowMs - 1)) / (strikes - 1));
            let at: number;
            for (let k = 1; k < strikes; k++) {
              at = start + 1 + (k - 1) * gap;
              expect(decideQuota(state, policy, at).verdict).toBe('rate_limited');
            }
            at = start + 1 + (strikes - 1) * gap;
            const banned = decideQuota(state, policy, at);
            expect(banned).toMatchObject({ verdict: 'banned', retryAt: at + banMs });
            for (const fraction of duringBan) {
              const when = at + Math.floor(fraction * (banMs - 1));
              expect(decideQuota(state, policy, when)).toMatchObject({ verdict: 'banned', retryAt: at + banMs });
            }
            expect(decideQuota(state, policy, at + banMs).verdict).toBe('admitted');
          },
        ),
        { numRuns: runs(3000) },
      );
    });

    it('fewer strikes, or strikes spread wider than the configured period, never ban', () => {
      fc.assert(
        fc.property(strikeArb, fc.boolean(), ({ policy, start }, spread) => {
          const { strikes, strikeWindowMs } = policy.ban;
          fc.pre(!spread || strikes > 1);
          const state = createQuotaState(policy);
          for (let i = 0; i <= policy.rules[0]!.limit; i++) decideQuota(state, policy, start);
          const count = spread ? strikes + 1 : strikes - 1;
          const gap = spread ? Math.ceil(strikeWindowMs / (strikes - 1)) : 0;
          for (let k = 0; k < count; k++) {
            expect(decideQuota(state, policy, start + 1 + k * gap).verdict).toBe('rate_limited');
          }
        }),
        { numRuns: runs(3000) },
      );
    });
  });

  it("one key's traffic never changes another key's decisions", () => {
    const trafficArb = fc
      .tuple(smallRulesArb, fc.option(smallBanArb, { nil: undefined }))
      .chain(([rules, ban]) =>
        fc.record({
          policy: fc.constant<QuotaPolicy>(ban === undefined ? { rules } : { rules, ban }),
          requests: scheduleArb(rules).chain((times) =>
            fc
              .array(fc.constantFrom('k1', 'k2', 'k3'), { minLength: times.length, maxLength: times.length })
              .map((keys) => times.map((at, i) => ({ at, key: keys[i]! }))),
          ),
        }),
      );
    fc.assert(
      fc.property(trafficArb, ({ policy, requests }) => {
        const decideAll = (only?: string): Map<string, QuotaDecision[]> => {
          const clock = new ManualClock(0);
          // Sweeping all the time: forgetting idle keys must not show either.
          const store = new MemoryQuotaStore(clock, { sweepIntervalMs: 0, sweepEvery: 1, sweepBatch: 2 });
          const decisions = new Map<string, QuotaDecision[]>();
          for (const { at, key } of requests) {
            if (only !== undefined && key !== only) continue;
            clock.set(at);
            decisions.set(key, [...(decisions.get(key) ?? []), store.decide(key, policy)]);
          }
          return decisions;
        };
        const together = decideAll();
        for (const [key, decisions] of together) {
          const alone = decideAll(key).get(key) ?? [];
          check(alone.length === decisions.length, () => key);
          alone.forEach((decision, i) => expectSameDecision(decision, decisions[i]!));
        }
      }),
      { numRuns: runs(1000) },
    );
  });
});
