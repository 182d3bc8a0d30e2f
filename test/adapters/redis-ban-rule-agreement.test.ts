import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { LocalRefusals } from '../../src/adapters/wrappers/local-refusals.js';
import { isBanned, registerRefusal, type BanState } from '../../src/domain/quota/ban-policy.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { BanPolicy, QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import type { StrikeRecorder } from '../../src/ports/strike-recorder.js';
import { ManualClock } from '../support/manual-clock.js';
import { runs } from '../support/property-runs.js';
import { smallBanArb } from '../../src/testing/quota-schedules.js';
import { useTestRedis } from '../support/use-test-redis.js';

/**
 * The ban rule is stated once, in the domain (registerRefusal, isBanned); the quota script
 * (lua/quota.lua) and LocalRefusals restate it for their storage, and are held to it here.
 */
const shared = useTestRedis();
const START = 1_767_225_600_000;

/** A step of the clock: back or forward, on the strike window's edge now and then (a strike exactly a window after another). */
const stepArb = (ban: BanPolicy, min: number): fc.Arbitrary<number> =>
  fc.oneof(fc.integer({ min, max: 8_000 }), fc.constantFrom(0, 1, ban.strikeWindowMs, ban.strikeWindowMs - 1));

/** Refusals: each a step from the one before and how long its Retry-After told to wait. */
const refusalsArb = (ban: BanPolicy): fc.Arbitrary<{ step: number; wait: number }[]> =>
  fc.array(fc.record({ step: stepArb(ban, -3_000), wait: fc.integer({ min: 1, max: 30_000 }) }), { minLength: 1, maxLength: 40 });

const freshState = (): BanState => ({ refusedUntil: Number.NEGATIVE_INFINITY, bannedUntil: Number.NEGATIVE_INFINITY, strikes: null });

describe('the ban rule of the domain is the one the others apply', () => {
  it("the quota script's strikes ban exactly when the domain's registerRefusal does, until the same time, for any refusals and clock steps", async () => {
    await fc.assert(
      fc.asyncProperty(smallBanArb.chain((ban) => fc.tuple(fc.constant(ban), refusalsArb(ban))), async ([ban, refusals]) => {
        const clock = new ManualClock(START);
        const store = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: clock });
        // A limit never reached: the ban's answer is its end alone.
        const policy: QuotaPolicy = { rules: [{ name: 'a', limit: 1_000, windowMs: 60_000 }], ban };
        await store.decide('s', policy);
        const state = freshState();
        let at = START;
        for (const { step, wait } of refusals) {
          at += step;
          clock.set(at);
          // A refusal during a ban is answered with the ban, never counted.
          if (!isBanned(state, at)) registerRefusal(state, policy.ban!, at, at + wait);
          const banned = await store.recordStrikes('s', policy, [at, at + wait]);
          expect(banned === undefined ? undefined : banned.retryAt).toBe(isBanned(state, at) ? state.bannedUntil : undefined);
        }
      }),
      { numRuns: runs(150) },
    );
  });

  it('LocalRefusals counting strikes on those the store reported tells the strike that bans exactly when the domain does', async () => {
    await fc.assert(
      fc.asyncProperty(
        smallBanArb.chain((ban) =>
          fc.record({
            ban: fc.constant(ban),
            // The store's strikes before the refusal, oldest first, as a refusal reports them.
            reported: fc
              .array(fc.oneof(fc.integer({ min: -30_000, max: 0 }), fc.constantFrom(0, -ban.strikeWindowMs)), { maxLength: ban.strikes })
              .map((offsets) => offsets.sort((a, b) => a - b)),
            steps: fc.array(stepArb(ban, 0), { minLength: 1, maxLength: 12 }),
          }),
        ),
        async ({ ban, reported, steps }) => {
          const clock = new ManualClock(START);
          const policy: QuotaPolicy = { rules: [{ name: 'a', limit: 1, windowMs: 60_000 }], ban };
          // Told to wait past every step, and asked within the strike lag: each refusal is answered locally, a strike.
          // Any schedule (12 steps of at most 20 s, the longest strike window) stays inside both the lag
          // and the retryAt less the lag, where refusals are answered locally: one reaching the lag made
          // LocalRefusals ask the store again, which this stub does not model.
          const retryAt = START + 1_000_000;
          const refused = (decidedAt: number, verdict: QuotaDecision['verdict']): QuotaDecision => ({ verdict, decidedAt, remaining: [0], resetAt: [retryAt], retryAt });
          const recorder: StrikeRecorder = {
            decideReportingStrikes: () => Promise.resolve({ decision: refused(clock.now(), 'rate_limited'), strikes: reported.map((offset) => START + offset) }),
            // Asked at once only by the strike LocalRefusals takes to complete the ban.
            recordStrikes: () => Promise.resolve(refused(clock.now(), 'banned')),
          };
          const store: QuotaStore = { decide: () => Promise.reject(new Error('unused')), peek: () => Promise.reject(new Error('unused')), reset: () => undefined, refund: () => undefined };
          const options = { strikeLagMs: 500_000, maxEntries: 10, schedule: () => undefined, onFlushError: () => undefined };
          const local = new LocalRefusals(store, recorder, clock, options);

          // The domain's ring holding the reported strikes, filled from its first slot as it fills one.
          const times = new Float64Array(ban.strikes);
          reported.forEach((offset, i) => (times[i] = START + offset));
          const strikes = { times, next: reported.length % ban.strikes, size: reported.length };
          const state: BanState = { refusedUntil: retryAt, bannedUntil: Number.NEGATIVE_INFINITY, strikes };
          expect((await local.decide('s', policy)).verdict).toBe('rate_limited');
          let at = START;
          for (const step of steps) {
            at += step;
            clock.set(at);
            const domainBans = registerRefusal(state, ban, at, retryAt);
            expect((await local.decide('s', policy)).verdict).toBe(domainBans ? 'banned' : 'rate_limited');
            if (domainBans) return;
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
