import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { STANDARD_PLANS } from '../domain/quota/plan.js';
import type { QuotaDecision } from '../domain/quota/quota-decision.js';
import type { QuotaPolicy } from '../domain/quota/quota-rule.js';
import type { Clock } from '../ports/clock.js';
import type { QuotaStore } from '../ports/quota-store.js';
import { like, same, sameDecision } from './assertions.js';
import { checkOf, type ContractCheck, type Disposable } from './check.js';
import { ManualClock } from './manual-clock.js';
import type { QuotaStoreContractContext } from './quota-store-contract.js';
import { burstPlanChangeScenarioArb, planChangeScenarioArb, realPlanChangeScenarioArb, type PlanChangeScenario } from './quota-schedules.js';
import { ReferenceQuota } from './reference-quota.js';
import { toldRetryAt } from './told-retry-at.js';

export interface PlanChangeCheckOptions {
  /** Schedules per property (300 unless told): thousands in memory, fewer where each decision is a round trip. */
  readonly numRuns?: number;
  /** Most steps of each schedule (scheduleArb's default unless told). */
  readonly maxSteps?: number;
}

/** A whole minute and a whole 10-minute window: buckets start exactly here. */
const START = 1_767_225_600_000;

/** Whether some rule of `now` allows less than the same rule of `then`. */
const lowered = (then: QuotaPolicy, now: QuotaPolicy): boolean => now.rules.some((rule, i) => rule.limit < then.rules[i]!.limit);

/** A failing check with its message; nothing to pay when it holds. */
const holds = (condition: boolean, message: () => string): void => {
  if (!condition) throw new assert.AssertionError({ message: message() });
};

/** The schedules reached what a property is about often enough for its passing to mean something. */
const enough = (count: number, floor: number, what: string): void => {
  assert.ok(count > floor, `${what}: ${count}, not above ${floor}; the schedules rarely reached what this property is about`);
};

interface Context extends Disposable {
  readonly clock: ManualClock;
  readonly store: QuotaStore;
  /** A subject of this check's own, another at every call. */
  subject(): string;
}

/**
 * The semantics of a plan change (docs/decisions.md, "Plan changes") on any QuotaStore: schedules
 * whose policy changes limits at random times, decided as the reference model decides them,
 * and the promises to a client that follows Retry-After. `create` gets the clock the store must
 * decide by and answers a store, fresh or shared (each check decides for subjects of its own).
 */
export const planChangeChecks = (create: (clock: Clock) => Promise<QuotaStoreContractContext>, options: PlanChangeCheckOptions = {}): ContractCheck[] => {
  const numRuns = options.numRuns ?? 300;
  const scenarioArb = fc.oneof(
    { arbitrary: planChangeScenarioArb(options), weight: 3 },
    realPlanChangeScenarioArb(options),
    burstPlanChangeScenarioArb(options),
  );
  /** One store per check and a subject per schedule. */
  const setup = async (): Promise<Context> => {
    const clock = new ManualClock(START);
    const { store, cleanup } = await create(clock);
    const prefix = `plan-change:${randomUUID()}`;
    let runs = 0;
    return { clock, store, subject: () => `${prefix}:${runs++}`, cleanup };
  };
  const check = (name: string, body: (context: Context) => Promise<void>): ContractCheck => checkOf(name, setup, body);

  /** Every request of `scenario` decided in order under its policy, sent without waiting for the answers. */
  const decideAll = async (
    clock: ManualClock,
    store: QuotaStore,
    subject: string,
    { policies, times, policyAt }: PlanChangeScenario,
  ): Promise<QuotaDecision[]> => {
    const decisions = times.map((at, i) => {
      clock.set(at);
      return store.decide(subject, policies[policyAt[i]!]!);
    });
    return Promise.all(decisions);
  };

  return [
    check('decides and peeks exactly like the model that keeps every counted request and decides each request by the limits in force when it comes: what was counted stays counted, the new limits decide from the change on, and strikes and bans carry over, a peek counting the strikes within the strike window as the model does', async ({ clock, store, subject }) => {
      await fc.assert(
        fc.asyncProperty(
          scenarioArb.chain((scenario) =>
            fc.tuple(
              fc.constant(scenario),
              fc.array(fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, fc.constant(true)), {
                minLength: scenario.times.length,
                maxLength: scenario.times.length,
              }),
            ),
          ),
          async ([{ policies, times, policyAt }, peeks]) => {
            const key = subject();
            const reference = new ReferenceQuota();
            const expected: QuotaDecision[] = [];
            const actual = times.map((at, i) => {
              clock.set(at);
              const policy = policies[policyAt[i]!]!;
              // Peeks, under the plan in force, change nothing.
              if (peeks[i]!) {
                expected.push(reference.peek(policy, at));
                return store.peek(key, policy);
              }
              expected.push(reference.decide(policy, at));
              return store.decide(key, policy);
            });
            (await Promise.all(actual)).forEach((decision, i) => sameDecision(decision, expected[i]!));
          },
        ),
        { numRuns },
      );
    }),

    check('never admits more in a rolling window of a rule than the limit in force at its last admission, and in any span of d ms of a burst rule more than limit + floor(d * limit / windowMs) for the largest limit of its plans', async ({ clock, store, subject }) => {
      let windowsAcrossChanges = 0;
      let spansAcrossChanges = 0;
      await fc.assert(
        fc.asyncProperty(scenarioArb, async (scenario) => {
          const decisions = await decideAll(clock, store, subject(), scenario);
          const admitted = scenario.times.flatMap((at, i) => (decisions[i]!.verdict === 'admitted' ? [{ at, policy: scenario.policyAt[i]! }] : []));
          scenario.policies[0]!.rules.forEach(({ windowMs, kind }, rule) => {
            if (kind === 'burst') {
              // Each level drained at the rate of the limit in force, so the largest bounds every span.
              const limit = Math.max(...scenario.policies.map((policy) => policy.rules[rule]!.limit));
              admitted.forEach(({ at, policy }, last) => {
                for (let first = last; first >= 0; first--) {
                  const bound = limit + Math.floor(((at - admitted[first]!.at) * limit) / windowMs);
                  holds(last - first + 1 <= bound, () => `burst rule ${rule}: ${last - first + 1} admitted from ${admitted[first]!.at} to ${at}, over ${bound}`);
                  if (admitted[first]!.policy !== policy) spansAcrossChanges++;
                }
              });
              return;
            }
            let first = 0;
            admitted.forEach(({ at, policy }, last) => {
              while (admitted[first]!.at <= at - windowMs) first++;
              const limit = scenario.policies[policy]!.rules[rule]!.limit;
              holds(last - first + 1 <= limit, () => `rule ${rule}: ${last - first + 1} admitted in the window ending at ${at}, limit ${limit}`);
              if (admitted[first]!.policy !== policy) windowsAcrossChanges++;
            });
          });
        }),
        { numRuns },
      );
      enough(windowsAcrossChanges, 10 * numRuns, 'rolling windows that span a plan change');
      enough(spansAcrossChanges, numRuns, 'burst spans that cross a plan change');
    }),

    check("a client that waits out a 429's Retry-After, rate limited or banned, is admitted unless a limit of its plan was lowered while it waited", async ({ clock, store, subject }) => {
      const waited = { afterRefusals: 0, afterBans: 0, acrossChanges: 0, acrossChangesDuringBans: 0 };
      await fc.assert(
        fc.asyncProperty(
          scenarioArb.chain((scenario) =>
            fc.tuple(fc.constant(scenario), fc.array(fc.boolean(), { minLength: scenario.times.length, maxLength: scenario.times.length })),
          ),
          async ([{ policies, times, policyAt }, waits]) => {
            const key = subject();
            // The schedule gives the gaps between sends; a wait moves the rest of it later.
            let delay = 0;
            let last: { decision: QuotaDecision; policy: QuotaPolicy; changedDuringBan: boolean } | undefined;
            for (let i = 0; i < times.length; i++) {
              const policy = policies[policyAt[i]!]!;
              const waiting = last !== undefined && last.decision.verdict !== 'admitted' && waits[i]!;
              const at = waiting ? toldRetryAt(last!.decision) : times[i]! + delay;
              delay = at - times[i]!;
              clock.set(at);
              const decision = await store.decide(key, policy);
              if (waiting) {
                const told = last!;
                const changed = told.policy !== policy;
                waited.afterRefusals++;
                if (told.decision.verdict === 'banned') waited.afterBans++;
                if (changed) waited.acrossChanges++;
                if (told.changedDuringBan) waited.acrossChangesDuringBans++;
                holds(
                  decision.verdict === 'admitted' || lowered(told.policy, policy),
                  () => `${told.decision.verdict} at ${told.decision.decidedAt}, told ${at}: ${decision.verdict} (limits ${JSON.stringify(policy.rules)})`,
                );
              }
              const changedDuringBan =
                decision.verdict === 'banned' && last?.decision.verdict === 'banned' && (last.changedDuringBan || last.policy !== policy);
              last = { decision, policy, changedDuringBan };
            }
          },
        ),
        { numRuns },
      );
      enough(waited.afterBans, numRuns / 10, 'waits out a ban');
      enough(waited.acrossChanges, numRuns / 5, 'waits across a plan change');
      enough(waited.acrossChangesDuringBans, numRuns / 50, 'waits across a change during a ban');
    }),

    check('a client that waits out every Retry-After earns no strike, whatever the plan changes: the 429 it may meet at a Retry-After after a lowering is a first refusal with a Retry-After of its own', async ({ clock, store, subject }) => {
      let refusedAfterLowering = 0;
      await fc.assert(
        fc.asyncProperty(scenarioArb, async ({ policies, times, policyAt }) => {
          const key = subject();
          // One strike bans at once, so a strike shows as a ban.
          const strict = policies.map((policy): QuotaPolicy => ({ rules: policy.rules, ban: { strikes: 1, strikeWindowMs: 86_400_000, banMs: 1_000 } }));
          let delay = 0;
          let refused: QuotaDecision | undefined;
          let previous = strict[policyAt[0]!]!;
          for (let i = 0; i < times.length; i++) {
            const policy = strict[policyAt[i]!]!;
            const at = refused === undefined ? times[i]! + delay : toldRetryAt(refused);
            delay = at - times[i]!;
            clock.set(at);
            const decision = await store.decide(key, policy);
            holds(decision.verdict !== 'banned', () => `banned at ${at}`);
            if (refused !== undefined && decision.verdict === 'rate_limited' && lowered(previous, policy)) refusedAfterLowering++;
            refused = decision.verdict === 'rate_limited' ? decision : undefined;
            previous = policy;
          }
        }),
        { numRuns },
      );
      enough(refusedAfterLowering, numRuns / 20, 'refusals at a Retry-After after a lowering');
    }),

    check("a change from free to pro admits at once what pro allows beyond free's limit, and back to free keeps the requests counted until they drop, Retry-After telling when", async ({ clock, store, subject }) => {
      const key = subject();
      const free: QuotaPolicy = { rules: STANDARD_PLANS.free.rules };
      const pro: QuotaPolicy = { rules: STANDARD_PLANS.pro.rules };
      const verdicts = async (policy: QuotaPolicy, count: number): Promise<string[]> => {
        const decisions: Promise<QuotaDecision>[] = [];
        for (let i = 0; i < count; i++) decisions.push(Promise.resolve(store.decide(key, policy)));
        return (await Promise.all(decisions)).map((decision) => decision.verdict);
      };
      clock.set(START);
      same(await verdicts(free, 61), [...Array<string>(60).fill('admitted'), 'rate_limited']);
      clock.set(START + 10_000);
      const upgraded = await store.decide(key, pro);
      like(upgraded, { verdict: 'admitted', remaining: [239, 9_939] });
      same(await verdicts(pro, 240), [...Array<string>(239).fill('admitted'), 'rate_limited']);
      // Back to free with 300 counted this minute: refused until all but 59 have dropped, 240 of them counted at 10 s.
      clock.set(START + 20_000);
      const downgraded = await store.decide(key, free);
      like(downgraded, { verdict: 'rate_limited', remaining: [0, 700], retryAt: START + 71_000 });
      clock.set(START + 61_000);
      like(await store.decide(key, free), { verdict: 'rate_limited', remaining: [0, 700], retryAt: START + 71_000 });
      clock.set(START + 71_000);
      same((await store.decide(key, free)).verdict, 'admitted');
    }),

    check("a plan change neither lifts nor lengthens a ban, and the ban's Retry-After follows the limits in force: lowered during the ban, it moves to when the lower limit admits; raised again, back to the ban's end", async ({ clock, store, subject }) => {
      const key = subject();
      const ban = { strikes: 1, strikeWindowMs: 60_000, banMs: 120_000 };
      const rules = (longLimit: number): QuotaPolicy['rules'] => [
        { name: 'minute', limit: 2, windowMs: 60_000 },
        { name: 'ten-minutes', limit: longLimit, windowMs: 600_000 },
      ];
      const roomy: QuotaPolicy = { rules: rules(10), ban };
      const tight: QuotaPolicy = { rules: rules(2), ban };
      const decideAt = async (at: number, policy: QuotaPolicy): Promise<QuotaDecision> => {
        clock.set(at);
        return store.decide(key, policy);
      };
      await decideAt(START, roomy);
      await decideAt(START, roomy);
      same((await decideAt(START + 500, roomy)).verdict, 'rate_limited');
      // The strike bans until START + 121 s; the minute rule admits again long before.
      like(await decideAt(START + 1_000, roomy), { verdict: 'banned', retryAt: START + 121_000 });
      // Two requests counted in the 10-minute window: under a limit of 2 it admits at START + 610 s.
      like(await decideAt(START + 2_000, tight), { verdict: 'banned', retryAt: START + 610_000, resetAt: [START + 121_000, START + 610_000] });
      like(await decideAt(START + 3_000, roomy), { verdict: 'banned', retryAt: START + 121_000 });
      like(await decideAt(START + 120_999, roomy), { verdict: 'banned', retryAt: START + 121_000 });
      const lastBanAnswer = await decideAt(START + 120_999, tight);
      like(lastBanAnswer, { verdict: 'banned', retryAt: START + 610_000 });
      // The ban ends as it would have: refused by the lower limit then, and no strike for it.
      same((await decideAt(START + 121_000, tight)).verdict, 'rate_limited');
      same((await decideAt(toldRetryAt(lastBanAnswer), tight)).verdict, 'admitted');
    }),
  ];
};
