import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { LocalRefusals } from '../../src/adapters/wrappers/local-refusals.js';
import type { StrikeRecorder } from '../../src/ports/strike-recorder.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import { type QuotaState, createQuotaState, decideQuota, peekQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { banScenarioArb, scheduleArb, smallBanArb, smallRulesArb } from '../../src/testing/quota-schedules.js';
import { useTestRedis } from '../support/use-test-redis.js';
import { runs } from '../support/property-runs.js';

const shared = useTestRedis();
const MAX_REQUESTS = 80;

interface Schedule {
  readonly requests: readonly { readonly at: number; readonly subject: number; readonly policy: QuotaPolicy }[];
  readonly strikeLagMs: number;
}

/** Up to three subjects under one banning policy, now and then under another object with other limits. */
const smallScheduleArb: fc.Arbitrary<Schedule> = fc
  .tuple(smallRulesArb, smallBanArb, fc.constantFrom(1, 10, 100))
  .chain(([rules, ban, strikeLagMs]) => {
    const main: QuotaPolicy = { rules, ban };
    const otherLimits: QuotaPolicy = { rules: rules.map((rule) => ({ ...rule, limit: rule.limit + 1 })), ban };
    return fc.record({
      times: scheduleArb(rules, { maxSteps: 30, maxBurst: 8 }),
      subjects: fc.array(fc.nat({ max: 2 }), { minLength: MAX_REQUESTS, maxLength: MAX_REQUESTS }),
      policies: fc.array(fc.oneof({ arbitrary: fc.constant(main), weight: 10 }, fc.constant(otherLimits)), {
        minLength: MAX_REQUESTS,
        maxLength: MAX_REQUESTS,
      }),
      strikeLagMs: fc.constant(strikeLagMs),
    });
  })
  .map(({ times, subjects, policies, strikeLagMs }) => ({
    requests: times.slice(0, MAX_REQUESTS).map((at, i) => ({ at, subject: subjects[i]!, policy: policies[i]! })),
    strikeLagMs,
  }));

/** The real plans under the default ban (20 strikes), with bursts long enough to be banned. */
const banScheduleArb: fc.Arbitrary<Schedule> = banScenarioArb.map(({ policy, times }) => ({
  requests: times.slice(0, 300).map((at) => ({ at, subject: 0, policy })),
  strikeLagMs: 100,
}));

describe('refusals answered by the instance (LocalRefusals over Redis) against the store alone', () => {
  const clock = new ManualClock(0);
  let run = 0;
  let localAnswers = 0;
  let bansStartedLocally = 0;
  let peekedWithPending = 0;

  /**
   * Feeds one schedule to the engine alone and to LocalRefusals over Redis, flushing strikes
   * when their timer would fire: every answer has the engine's verdict and retryAt, so a ban
   * starts at the same strike, answered banned by the instance that counted it. A peek after
   * every third request reports the engine's strikes, those answered here and not yet sent included.
   */
  const compare = async ({ requests, strikeLagMs }: Schedule): Promise<void> => {
    run++;
    const prefix = shared.freshPrefix();
    // The engine itself, whose state tells when each ban started.
    const states = new Map<number, QuotaState>();
    const redis = new RedisQuotaStore(shared.redis, { prefix, time: clock });
    let calls = 0;
    const counted: QuotaStore = {
      decide: (subject, policy) => {
        calls++;
        return redis.decide(subject, policy);
      },
      peek: (subject, policy) => redis.peek(subject, policy),
      reset: () => {
        throw new Error('this test does not reset');
      },
      refund: () => {
        throw new Error('this test does not refund');
      },
    };
    // Under a ban rule the cache decides through the recorder, which reports the strikes.
    const recorder: StrikeRecorder = {
      recordStrikes: (subject, policy, strikes) => redis.recordStrikes(subject, policy, strikes),
      decideReportingStrikes: (subject, policy) => {
        calls++;
        return redis.decideReportingStrikes(subject, policy);
      },
    };
    const flushes: number[] = [];
    const cached = new LocalRefusals(counted, recorder, clock, {
      strikeLagMs,
      maxEntries: 100,
      schedule: (_flush, delayMs) => flushes.push(clock.now() + delayMs),
      onFlushError: (error) => {
        throw error;
      },
    });
    for (const [i, { at, subject, policy }] of requests.entries()) {
      while (flushes.length > 0 && flushes[0]! <= at) {
        clock.set(flushes.shift()!);
        await cached.flush();
      }
      clock.set(at);
      const state = states.get(subject) ?? createQuotaState(policy);
      states.set(subject, state);
      const expected: QuotaDecision = decideQuota(state, policy, at);
      const before = calls;
      const actual = await cached.decide(`${run}:${subject}`, policy);
      if (calls === before) {
        localAnswers++;
        if (actual.verdict === 'banned' && state.bannedUntil - policy.ban!.banMs === at) bansStartedLocally++;
      }
      expect(actual.verdict).toBe(expected.verdict);
      expect(actual.retryAt).toBe(expected.retryAt);
      if (i % 3 === 0) {
        if (flushes.length > 0) peekedWithPending++;
        expect((await cached.peek(`${run}:${subject}`, policy)).strikes).toBe(peekQuota(state, policy, at).strikes);
      }
    }
  };

  it('answers every request as the store alone would: the same verdicts and Retry-After, the ban from the very strike that completes it, and peeks the same strikes, those answered here included', async () => {
    await fc.assert(fc.asyncProperty(smallScheduleArb, compare), { numRuns: runs(300) });
    await fc.assert(fc.asyncProperty(banScheduleArb, compare), { numRuns: runs(60) });
    // The schedules did exercise local answers, and bans started by a strike answered here.
    expect(localAnswers).toBeGreaterThan(1_000);
    expect(bansStartedLocally).toBeGreaterThan(0);
    expect(peekedWithPending).toBeGreaterThan(100);
  });
});
