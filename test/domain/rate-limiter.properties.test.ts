import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import type { BanPolicy, QuotaRule } from '../../src/domain/quota/quota-rule.js';
import { type RateLimitCheck, type RateLimiter, createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import { check } from '../support/fast-assertions.js';
import { ManualClock } from '../support/manual-clock.js';
import { scheduleArb } from '../../src/testing/quota-schedules.js';
import { onTheWire, serverHeaders } from './rate-limiter-support.js';
import { runs } from '../support/property-runs.js';

/** One to three rules of small limits over windows a limiter takes (whole seconds, 60 whole-ms granules): 3 s to 1 h. */
const rulesArb: fc.Arbitrary<QuotaRule[]> = fc
  .array(fc.record({ seconds: fc.constantFrom(3, 6, 15, 60, 3600), limit: fc.integer({ min: 1, max: 6 }) }), {
    minLength: 1,
    maxLength: 3,
  })
  .map((drafts) => drafts.map(({ seconds, limit }, i) => ({ name: `rule${i}`, limit, windowMs: seconds * 1000 })));

const banArb: fc.Arbitrary<BanPolicy> = fc.record({
  strikes: fc.integer({ min: 1, max: 5 }),
  strikeWindowMs: fc.integer({ min: 1, max: 60_000 }),
  banMs: fc.integer({ min: 1, max: 600_000 }),
});

interface Scenario {
  readonly rules: QuotaRule[];
  readonly ban: BanPolicy | undefined;
  /** Non-decreasing times, each with the subject (0 to 2) that sends then. */
  readonly requests: { readonly at: number; readonly subject: number }[];
}

const scenarioArb = (withBan: boolean): fc.Arbitrary<Scenario> =>
  fc
    .tuple(rulesArb, withBan ? fc.option(banArb, { nil: undefined }) : fc.constant(undefined))
    .chain(([rules, ban]) =>
      fc
        .tuple(scheduleArb(rules, { maxSteps: 100, maxBurst: 6 }), fc.array(fc.nat({ max: 2 }), { minLength: 600, maxLength: 600 }))
        .map(([times, subjects]) => ({ rules, ban, requests: times.map((at, i) => ({ at, subject: subjects[i % subjects.length]! })) })),
    );

const limiterOf = (rules: readonly QuotaRule[], ban: BanPolicy | undefined, clock: ManualClock): RateLimiter<MemoryQuotaStore> => {
  const store = new MemoryQuotaStore(clock);
  return createRateLimiter(ban === undefined ? { rules, store } : { rules, store, ban });
};

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

const sameHeaders = (a: Record<string, string>, b: Record<string, string>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([name, value]) => b[name] === value);

describe('rate limiter properties', () => {
  it("in every rolling window of a rule's length, the limiter admits at most the rule's limit to each subject, for any schedule, several rules and with or without a ban; every answer carries the server's header fields for its decision, Retry-After exactly on refusals", () => {
    let refusals = 0;
    fc.assert(
      fc.property(scenarioArb(true), ({ rules, ban, requests }) => {
        const clock = new ManualClock(0);
        const limiter = limiterOf(rules, ban, clock);
        const admitted: number[][] = [[], [], []];
        for (const { at, subject } of requests) {
          clock.set(at);
          const answer = limiter.check(`ip:${subject}`);
          check(answer.allowed === (answer.decision.verdict === 'admitted'), () => `allowed ${answer.allowed} for ${answer.decision.verdict}`);
          check(answer.allowed === (answer.headers['Retry-After'] === undefined), () => `Retry-After ${answer.headers['Retry-After']} when allowed is ${answer.allowed}`);
          const wire = onTheWire(answer.headers);
          const server = serverHeaders(limiter.policy, answer.decision);
          if (!sameHeaders(wire, server)) expect(wire).toEqual(server);
          if (answer.allowed) admitted[subject]!.push(at);
          else refusals++;
        }
        for (const times of admitted) {
          for (const rule of rules) {
            const most = mostInAnyWindow(times, rule.windowMs);
            check(most <= rule.limit, () => `${most} admitted within ${rule.windowMs} ms under ${JSON.stringify(rule)}`);
          }
        }
      }),
      { numRuns: runs(1_000) },
    );
    // Ten refusals a run on average: the schedules reach the limits (scaled with the runs, so the unit tier's tenth holds it too).
    expect(refusals).toBeGreaterThan(10 * runs(1_000));
  });

  it('a refused check costs nothing: without a ban, the schedule of only the admitted requests is admitted whole, with the same decisions', () => {
    fc.assert(
      fc.property(scenarioArb(false), ({ rules, requests }) => {
        const clock = new ManualClock(0);
        const limiter = limiterOf(rules, undefined, clock);
        const admitted: { at: number; subject: number; answer: RateLimitCheck }[] = [];
        for (const { at, subject } of requests) {
          clock.set(at);
          const answer = limiter.check(`ip:${subject}`);
          if (answer.allowed) admitted.push({ at, subject, answer });
        }
        const replayed = limiterOf(rules, undefined, clock);
        for (const { at, subject, answer } of admitted) {
          clock.set(at);
          const again = replayed.check(`ip:${subject}`);
          if (!sameHeaders(again.headers, answer.headers)) expect(again.headers).toEqual(answer.headers);
          expect(again.decision).toEqual(answer.decision);
        }
      }),
      { numRuns: runs(500) },
    );
  });

  it('a client that sends again exactly when Retry-After says is admitted then, and is never banned, whatever the rules and the ban', () => {
    let obeyed = 0;
    fc.assert(
      fc.property(scenarioArb(true), ({ rules, ban, requests }) => {
        const clock = new ManualClock(requests[0]?.at ?? 0);
        const limiter = limiterOf(rules, ban, clock);
        // The schedule gives the gaps between sends; a refusal holds the client back until its Retry-After.
        requests.forEach(({ at }, i) => {
          const answer = limiter.check('client');
          check(answer.decision.verdict !== 'banned', () => `banned at ${clock.now()}`);
          if (!answer.allowed) {
            obeyed++;
            clock.advance(1000 * Number(answer.headers['Retry-After']));
            const back = limiter.check('client');
            check(back.allowed, () => `refused at ${answer.decision.decidedAt}, ${back.decision.verdict} at its Retry-After ${clock.now()}`);
          }
          clock.advance((requests[i + 1]?.at ?? at) - at);
        });
      }),
      { numRuns: runs(500) },
    );
    expect(obeyed).toBeGreaterThan(4 * runs(500));
  });
});
