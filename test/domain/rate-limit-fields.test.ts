import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { bindingRuleIndex } from '../../src/domain/quota/binding-rule.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import { type QuotaState, createQuotaState, decideQuota, peekQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import { rateLimitFields } from '../../src/domain/quota/rate-limit-fields.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import { cloneQuotaState } from '../support/clone-quota-state.js';
import { check } from '../support/fast-assertions.js';
import { ManualClock } from '../support/manual-clock.js';
import { banScenarioArb, scenarioArb } from '../../src/testing/quota-schedules.js';
import { runs, share } from '../support/property-runs.js';

// Whole seconds; every clock below is set off them on purpose.
const T0 = 1_800_000_000_000;
const S0 = T0 / 1000;

/** Each rule's `t` in the RateLimit field, in rule order. */
const tOf = (rateLimit: string): number[] => [...rateLimit.matchAll(/;t=(\d+)/g)].map((match) => Number(match[1]));

describe('the reset fields at clocks and windows that are not whole seconds', () => {
  it("a ban that starts mid-second announces its end rounded up in X-RateLimit-Reset, Retry-After and t, never the second before it", () => {
    const clock = new ManualClock(T0 + 250);
    const limiter = createRateLimiter({
      rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }],
      ban: { strikes: 1, strikeWindowMs: 600_000, banMs: 900_000 },
      store: new MemoryQuotaStore(clock),
    });
    expect(limiter.check('ip:1').allowed).toBe(true);
    clock.set(T0 + 500);
    expect(limiter.check('ip:1').decision.verdict).toBe('rate_limited');
    // The first strike bans until T0 + 900.75 s.
    clock.set(T0 + 750);
    const banned = limiter.check('ip:1');
    expect(banned.decision).toMatchObject({ verdict: 'banned', retryAt: T0 + 900_750 });
    expect(banned.headers).toMatchObject({ 'X-RateLimit-Reset': String(S0 + 901), 'Retry-After': '900', RateLimit: '"minute";r=0;t=900' });
    // Half a second before the ban ends, a second is still left: rounded up, not down.
    clock.set(T0 + 900_250);
    expect(limiter.check('ip:1').headers).toMatchObject({ 'X-RateLimit-Reset': String(S0 + 901), 'Retry-After': '1', RateLimit: '"minute";r=0;t=1' });
    clock.set(T0 + 900_750);
    expect(limiter.check('ip:1').allowed).toBe(true);
  });

  it('a window of 3 s (granules of 50 ms) at a clock 1.234 s past the second announces the drop of its bucket rounded up', () => {
    const clock = new ManualClock(T0 + 1_234);
    const limiter = createRateLimiter({ rules: [{ name: 'burst', limit: 1, windowMs: 3_000 }], store: new MemoryQuotaStore(clock) });
    const admitted = limiter.check('ip:2');
    // Counted in the bucket of T0 + 1.2 s, which drops 61 buckets later, at T0 + 4.25 s.
    expect(admitted.decision.resetAt).toEqual([T0 + 4_250]);
    expect(admitted.headers).toMatchObject({ 'X-RateLimit-Reset': String(S0 + 5), RateLimit: '"burst";r=0;t=4' });
    clock.set(T0 + 2_500);
    expect(limiter.check('ip:2').headers).toMatchObject({ 'X-RateLimit-Reset': String(S0 + 5), 'Retry-After': '2', RateLimit: '"burst";r=0;t=2' });
    clock.set(T0 + 3_999);
    const refused = limiter.check('ip:2');
    expect(refused.headers).toMatchObject({ 'X-RateLimit-Reset': String(S0 + 5), 'Retry-After': '1', RateLimit: '"burst";r=0;t=1' });
    clock.set(T0 + 4_250);
    expect(limiter.check('ip:2').allowed).toBe(true);
  });

  /**
   * Checks every field of `decision` (just made on `state`) against the rules they state, at
   * any clock: each rounds up to whole seconds, so it is never early and less than a second late,
   * and a client acting on it finds what it said.
   */
  const checkFields = (state: QuotaState, policy: QuotaPolicy, decision: QuotaDecision): void => {
    const fields = rateLimitFields(policy, decision);
    const { decidedAt, resetAt, remaining } = decision;
    const binding = bindingRuleIndex(decision, policy.rules);
    const bindingReset = resetAt[binding]!;
    const at = `decided at ${decidedAt}`;
    check(fields.reset * 1000 >= bindingReset && fields.reset * 1000 < bindingReset + 1000, () => `${at}: X-RateLimit-Reset ${fields.reset} for a reset at ${bindingReset}`);
    const later = peekQuota(cloneQuotaState(state), policy, fields.reset * 1000);
    check(
      later.verdict !== 'banned' && (later.remaining[binding]! > remaining[binding]! || remaining[binding] === policy.rules[binding]!.limit),
      () => `${at}: at X-RateLimit-Reset ${fields.reset} the binding rule's ${remaining[binding]} remaining has not risen (${later.verdict}, ${later.remaining[binding]})`,
    );
    tOf(fields.rateLimit).forEach((t, i) => {
      const reset = resetAt[i]!;
      const end = decidedAt + 1000 * t;
      check(reset <= decidedAt ? t === 0 : end >= reset && end < reset + 1000, () => `${at}: t=${t} of rule ${i} for a reset at ${reset}`);
    });
    if (decision.verdict === 'admitted') return;
    const retryAfter = fields.retryAfter!;
    const retryAt = decidedAt + 1000 * retryAfter;
    check(retryAfter >= 1 && retryAt >= decision.retryAt && retryAt < Math.max(decision.retryAt, decidedAt) + 1000, () => `${at}: Retry-After ${retryAfter} for a retry at ${decision.retryAt}`);
    const back = decideQuota(cloneQuotaState(state), policy, retryAt);
    check(back.verdict === 'admitted', () => `${at}: ${back.verdict} at its Retry-After ${retryAfter}`);
  };

  it('on windows of 60 ms to a minute and clocks at any millisecond, X-RateLimit-Reset, Retry-After and each t are rounded up: never before what they announce, less than a second after, and the quota is back when they say', () => {
    let refusals = 0;
    let offSecond = 0;
    fc.assert(
      fc.property(scenarioArb(), ({ policy, times }) => {
        const state = createQuotaState(policy);
        for (const at of times) {
          const decision = decideQuota(state, policy, at);
          if (decision.verdict !== 'admitted') refusals++;
          if (decision.resetAt.some((reset) => reset % 1000 !== 0)) offSecond++;
          checkFields(state, policy, decision);
        }
      }),
      { numRuns: runs(400) },
    );
    expect(refusals).toBeGreaterThan(share(10_000));
    expect(offSecond).toBeGreaterThan(share(10_000));
  });

  it('under bans that start at any millisecond and last any number of them, the same holds of every answer, the bans included', () => {
    let bannedAnswers = 0;
    let offSecond = 0;
    fc.assert(
      fc.property(banScenarioArb, ({ policy, times }) => {
        const state = createQuotaState(policy);
        for (const at of times) {
          const decision = decideQuota(state, policy, at);
          if (decision.verdict === 'banned') {
            bannedAnswers++;
            if (decision.retryAt % 1000 !== 0) offSecond++;
          }
          checkFields(state, policy, decision);
        }
      }),
      { numRuns: runs(150) },
    );
    expect(bannedAnswers).toBeGreaterThan(share(1_000));
    expect(offSecond).toBeGreaterThan(share(1_000));
  });
});

describe('the fields of a plan with rules per operation', () => {
  const policy: QuotaPolicy = {
    rules: [
      { name: 'minute', limit: 100, windowMs: 60_000 },
      // Matches listPets at cost 2 in its plan: the costs below are what admission hands over.
      { name: 'search', limit: 10, windowMs: 60_000 },
      { name: 'writes', limit: 5, windowMs: 3_600_000, mode: 'shadow' },
      { name: 'day', limit: 1_000, windowMs: 86_400_000 },
    ],
  };
  const decision: QuotaDecision = { verdict: 'admitted', decidedAt: T0, remaining: [90, 4, 0, 990], resetAt: [T0 + 60_000, T0 + 30_000, T0 + 3_600_000, T0 + 86_400_000], retryAt: T0 };

  it('advertises the enforced rules a matching request spent under, the binding one among them in X-RateLimit-*', () => {
    expect(rateLimitFields(policy, decision, Object.freeze([1, 2, 1, 1]))).toEqual({
      limit: 10,
      remaining: 4,
      reset: S0 + 30,
      policy: '"minute";q=100;w=60, "search";q=10;w=60, "day";q=1000;w=86400',
      rateLimit: '"minute";r=90;t=60, "search";r=4;t=30, "day";r=990;t=86400',
      retryAfter: undefined,
    });
  });

  it('leaves out a rule the request did not match, and a shadow rule even when it has no room', () => {
    expect(rateLimitFields(policy, decision, Object.freeze([1, 0, 1, 1]))).toMatchObject({
      limit: 100,
      remaining: 90,
      policy: '"minute";q=100;w=60, "day";q=1000;w=86400',
      rateLimit: '"minute";r=90;t=60, "day";r=990;t=86400',
    });
    expect(bindingRuleIndex(decision, policy.rules, [1, 0, 1, 1])).toBe(0);
  });

  it("advertises every rule of today's plans, decided with the plain cost 1, as before", () => {
    const today: QuotaPolicy = { rules: [policy.rules[0]!, policy.rules[3]!] };
    const fields = rateLimitFields(today, { ...decision, remaining: [90, 990], resetAt: [T0 + 60_000, T0 + 86_400_000] });
    expect(fields).toEqual(rateLimitFields(today, { ...decision, remaining: [90, 990], resetAt: [T0 + 60_000, T0 + 86_400_000] }, 1));
    expect(fields.policy).toBe('"minute";q=100;w=60, "day";q=1000;w=86400');
  });
});
