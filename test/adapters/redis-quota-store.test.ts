import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { QuotaPolicy, QuotaRule, RuleCosts, RuleMode } from '../../src/domain/quota/quota-rule.js';
import type { Clock } from '../../src/ports/clock.js';
import { quotaStoreAgreesWithModel } from '../../src/testing/quota-properties.js';
import { describeQuotaStoreContract } from '../contracts/quota-store-contract.js';
import { ManualClock } from '../support/manual-clock.js';
import { banScenarioArb, burstAndWindowRulesArb, modedRulesArb, ruleCostsArb, scheduleArb, smallBanArb, smallRulesArb } from '../../src/testing/quota-schedules.js';
import { toldRetryAt } from '../support/retry-after.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';
import { useTestRedis } from '../support/use-test-redis.js';
import { runs } from '../support/property-runs.js';

const shared = useTestRedis();
const START = 1_767_225_600_000;
const DAY = 86_400_000;

describeQuotaStoreContract('redis', async (clock) => ({
  // The contract gives every test subjects of its own; the file's cleanup deletes the keys.
  store: new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: clock }),
  cleanup: async () => {},
}));

/**
 * A schedule for the differential test: requests of up to three subjects under one policy,
 * now and then under the same windows with other limits or another strike count (the state
 * carries over) or under other windows (the subject starts over), at times with bursts,
 * ties, granule and window edges, idle gaps, and clock steps back; refunds of earlier
 * admissions, of what they spent or of other units.
 */
type Operation = 'decide' | 'peek' | 'reset' | 'refund';

interface Schedule {
  readonly requests: readonly {
    readonly at: number;
    readonly subject: number;
    readonly policy: QuotaPolicy;
    readonly operation: Operation;
    /** The request's cost under the schedule's rules, within the smallest limits of its policies. */
    readonly cost: number | RuleCosts;
    /** A refund's: which earlier admission (from the newest, modulo their number), and its units unless it gives back what it spent. */
    readonly pick: number;
    readonly units: RuleCosts | undefined;
  }[];
}

const MAX_REQUESTS = 60;

interface ScheduleShape {
  readonly rules: fc.Arbitrary<readonly QuotaRule[]>;
  /** What a schedule's requests cost under its rules: the arbitrary each request's cost is drawn from. */
  readonly costs: (rules: readonly QuotaRule[]) => fc.Arbitrary<fc.Arbitrary<number | RuleCosts>>;
  /** Whether the plan also changes to the same rules with every mode flipped. */
  readonly modeChanges: boolean;
  /** Whether the plan also changes to the same rules, every one a burst rule (the subject starts over when one was a window). */
  readonly kindChanges: boolean;
}

const scheduleOfArb = ({ rules: rulesArb, costs, modeChanges, kindChanges }: ScheduleShape): fc.Arbitrary<Schedule> =>
  fc
    .tuple(rulesArb, fc.option(smallBanArb, { nil: undefined }))
    .chain(([rules, ban]) => {
      const main: QuotaPolicy = ban === undefined ? { rules } : { rules, ban };
      const otherLimits: QuotaPolicy = { ...main, rules: rules.map((rule) => ({ ...rule, limit: rule.limit + 1 })) };
      const otherWindows: QuotaPolicy = { ...main, rules: rules.map((rule) => ({ ...rule, windowMs: rule.windowMs * 2 })) };
      const otherStrikes: QuotaPolicy = ban === undefined ? main : { rules, ban: { ...ban, strikes: ban.strikes + 1 } };
      const otherModes: QuotaPolicy = { ...main, rules: rules.map((rule): QuotaRule => ({ ...rule, mode: rule.mode === 'shadow' ? 'enforce' : 'shadow' })) };
      const otherKinds: QuotaPolicy = { ...main, rules: rules.map((rule): QuotaRule => ({ ...rule, kind: 'burst' })) };
      const shortest = Math.min(...rules.map((rule) => rule.windowMs));
      return costs(rules).chain((costArb) =>
        fc.record({
          operations: fc.array(
            fc.record({
              operation: fc.oneof(
                { arbitrary: fc.constant<Operation>('decide'), weight: 10 },
                { arbitrary: fc.constant<Operation>('peek'), weight: 3 },
                fc.constant<Operation>('reset'),
                { arbitrary: fc.constant<Operation>('refund'), weight: 3 },
              ),
              cost: costArb,
              pick: fc.oneof(fc.constant(0), fc.nat()),
              units: fc.option(fc.tuple(...rules.map((rule) => fc.integer({ min: 0, max: rule.limit }))), { nil: undefined, freq: 3 }),
            }),
            { minLength: MAX_REQUESTS, maxLength: MAX_REQUESTS },
          ),
          times: scheduleArb(rules, { maxSteps: 25, maxBurst: 4 }),
          subjects: fc.array(fc.nat({ max: 2 }), { minLength: MAX_REQUESTS, maxLength: MAX_REQUESTS }),
          stepsBack: fc.array(fc.oneof({ arbitrary: fc.constant(0), weight: 8 }, fc.nat({ max: 2 * shortest })), {
            minLength: MAX_REQUESTS,
            maxLength: MAX_REQUESTS,
          }),
          policies: fc.array(
            fc.oneof(
              { arbitrary: fc.constant(main), weight: 12 },
              fc.constant(otherLimits),
              fc.constant(otherWindows),
              fc.constant(otherStrikes),
              fc.constant(modeChanges ? otherModes : main),
              fc.constant(kindChanges ? otherKinds : main),
            ),
            { minLength: MAX_REQUESTS, maxLength: MAX_REQUESTS },
          ),
        }),
      );
    })
    .map(({ times, subjects, stepsBack, policies, operations }) => ({
      requests: times.slice(0, MAX_REQUESTS).map((at, i) => ({
        at: Math.max(0, at - stepsBack[i]!),
        subject: subjects[i]!,
        policy: policies[i]!,
        ...operations[i]!,
      })),
    }));

/** Requests of 1 unit, or of 1 to the smallest limit under every rule. */
const weighedRequests: ScheduleShape = {
  rules: smallRulesArb,
  costs: (rules) => {
    const smallest = Math.min(...rules.map((rule) => rule.limit));
    return fc.constant(fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, fc.integer({ min: 1, max: smallest })));
  },
  modeChanges: false,
  kindChanges: false,
};

/**
 * Two to four rules of random modes, and requests of a few costs per rule (0 included) drawn
 * again and again, so runs of alike decisions form and split where costs or modes differ.
 */
const ruleCostRequests: ScheduleShape = {
  rules: modedRulesArb,
  costs: (rules) => fc.array(ruleCostsArb(rules), { minLength: 1, maxLength: 3 }).map((pool) => fc.constantFrom(...pool)),
  modeChanges: true,
  kindChanges: false,
};

/** Rules mixing windows and bursts of random modes, and per-rule costs as above; the plan may also make every rule a burst. */
const burstRequests: ScheduleShape = { ...ruleCostRequests, rules: burstAndWindowRulesArb, kindChanges: true };

/** Each schedule on subjects of its own run, decided by a fresh memory store and by Redis: the answers must be equal. */
const decidesLikeMemory = async (shape: ScheduleShape, numRuns: number): Promise<void> => {
  const prefix = shared.freshPrefix();
  const clock = new ManualClock(0);
  const redisStore = new RedisQuotaStore(shared.redis, { prefix, time: clock });
  let run = 0;
  await fc.assert(
    fc.asyncProperty(scheduleOfArb(shape), async ({ requests }) => {
      // The memory store never forgets a subject here: with clocks stepping back, forgetting
      // an idle subject may change a later decision, and no TTL fires within this test.
      const memoryStore = new MemoryQuotaStore(clock, { sweepEvery: Number.POSITIVE_INFINITY });
      run++;
      const expected: (QuotaDecision | undefined)[] = [];
      const actual: Promise<QuotaDecision | undefined>[] = [];
      const admitted: { readonly key: string; readonly policy: QuotaPolicy; readonly costs: RuleCosts; readonly decision: QuotaDecision }[] = [];
      for (const { at, subject, policy, operation, cost, pick, units } of requests) {
        clock.set(at);
        const key = `${run}:${subject}`;
        // Sent in order on one connection, without waiting: one pipeline per schedule.
        if (operation === 'reset') {
          memoryStore.reset(key);
          expected.push(undefined);
          actual.push(redisStore.reset(key).then(() => undefined));
        } else if (operation === 'refund') {
          const earlier = admitted[admitted.length - 1 - (pick % Math.max(1, admitted.length))];
          if (earlier === undefined) continue;
          // Redis's own decision is the memory store's (the test holds them equal), so its countedAt is the one named.
          memoryStore.refund(earlier.key, earlier.policy, units ?? earlier.costs, earlier.decision);
          expected.push(undefined);
          actual.push(redisStore.refund(earlier.key, earlier.policy, units ?? earlier.costs, earlier.decision).then(() => undefined));
        } else {
          const decision = memoryStore[operation](key, policy, cost);
          expected.push(decision);
          actual.push(redisStore[operation](key, policy, cost));
          if (operation === 'decide' && decision.verdict === 'admitted') {
            admitted.push({ key, policy, costs: policy.rules.map((_, i) => (typeof cost === 'number' ? cost : cost[i]!)), decision });
          }
        }
      }
      expect(await Promise.all(actual)).toEqual(expected);
    }),
    { numRuns },
  );
};

describe('RedisQuotaStore', () => {
  it('decides, peeks, refunds and resets every generated schedule of requests weighing 1 to the smallest limit exactly like the in-memory store: verdicts, remaining, resets, retry times, the time each admission was counted, strikes and bans', () =>
    decidesLikeMemory(weighedRequests, runs(1_500)));

  it('decides, peeks, refunds and resets every generated schedule of several enforced and shadow rules (their modes changing with the plan) and requests of per-rule costs, 0 included, exactly like the in-memory store: verdicts, remaining, resets, retry times, shadowed rules, the time each admission was counted, strikes and bans, in runs of alike decisions batched or split', () =>
    decidesLikeMemory(ruleCostRequests, runs(1_000)));

  it("works a ban's answer out again when only the rules' modes changed, as the in-memory store does: here after the clock stepped back into a ban past which the key had counted", async () => {
    const clock = new ManualClock(0);
    const redisStore = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: clock });
    const memoryStore = new MemoryQuotaStore(clock, { sweepEvery: Number.POSITIVE_INFINITY });
    const ban = { strikes: 2, strikeWindowMs: 8, banMs: 17 };
    const rules = (limits: readonly number[], mode: RuleMode): QuotaRule[] => [
      { name: 'r0', limit: limits[0]!, windowMs: 60, mode },
      { name: 'r1', limit: limits[1]!, windowMs: 120, mode },
    ];
    const enforced: QuotaPolicy = { rules: rules([3, 5], 'enforce'), ban };
    const raised: QuotaPolicy = { rules: rules([4, 6], 'enforce'), ban };
    const shadowed: QuotaPolicy = { rules: rules([3, 5], 'shadow'), ban };
    // The counterexample the differential property found, reduced to its one subject.
    const steps: [number, QuotaPolicy, 'decide' | 'peek'][] = [
      [120, enforced, 'decide'], [180, enforced, 'decide'], [180, enforced, 'decide'],
      [163, enforced, 'decide'], [180, raised, 'decide'], [179, shadowed, 'peek'],
    ];
    for (const [at, policy, operation] of steps) {
      clock.set(at);
      expect(await redisStore[operation]('k', policy, [2, 0])).toEqual(memoryStore[operation]('k', policy, [2, 0]));
    }
    expect(memoryStore.peek('k', shadowed, [2, 0])).toMatchObject({ verdict: 'banned', resetAt: [181, 180] });
  });

  it('decides, peeks and resets every generated schedule of rules mixing windows and burst buckets, enforced and shadow, of per-rule costs, exactly like the in-memory store: levels drained and counted, remaining, resets, retry times, shadowed rules, strikes and bans, through plan changes of limits, modes and kinds and a clock stepping back', () =>
    decidesLikeMemory(burstRequests, runs(1_000)));

  it("decides bans of keys whose rules are still spent when the ban ends exactly like the in-memory store, and admits a request at the ban's Retry-After", async () => {
    const prefix = shared.freshPrefix();
    const clock = new ManualClock(0);
    const redisStore = new RedisQuotaStore(shared.redis, { prefix, time: clock });
    let run = 0;
    let bans = 0;
    await fc.assert(
      fc.asyncProperty(banScenarioArb, async ({ policy, times }) => {
        const memoryStore = new MemoryQuotaStore(clock, { sweepEvery: Number.POSITIVE_INFINITY });
        run++;
        const expected: QuotaDecision[] = [];
        const actual: Promise<QuotaDecision>[] = [];
        const decide = (subject: string, at: number): QuotaDecision => {
          clock.set(at);
          actual.push(redisStore.decide(`${run}:${subject}`, policy));
          const decision = memoryStore.decide(`${run}:${subject}`, policy);
          expected.push(decision);
          return decision;
        };
        const scheduled = times.slice(0, 150);
        // One key follows the whole schedule, through bans and after them...
        for (const at of scheduled) decide('all', at);
        // ...another stops at its first ban and comes back when its Retry-After says.
        let back: number | undefined;
        for (const at of scheduled) {
          const decision = decide('obeys-ban', at);
          if (decision.verdict !== 'banned') continue;
          bans++;
          back = expected.length;
          decide('obeys-ban', toldRetryAt(decision));
          break;
        }
        const decided = await Promise.all(actual);
        expect(decided).toEqual(expected);
        if (back !== undefined) expect(decided[back]?.verdict).toBe('admitted');
      }),
      { numRuns: runs(400) },
    );
    expect(bans).toBeGreaterThan(100);
  });

  it("counts a strike a cache answered as decide would: one before the end of the Retry-After told, none at its very end", async () => {
    const clock = new ManualClock(START + 250);
    const store = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: clock });
    const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }], ban: { strikes: 1, strikeWindowMs: 600_000, banMs: 900_000 } };
    for (const subject of ['at-the-end', 'just-before']) {
      expect((await store.decide(subject, policy)).verdict).toBe('admitted');
      const refused = await store.decide(subject, policy);
      expect(refused.verdict).toBe('rate_limited');
      // Strikes until the Retry-After told (whole seconds from the refusal) has passed.
      const toldEnd = toldRetryAt(refused);
      const at = subject === 'at-the-end' ? toldEnd : toldEnd - 1;
      const banned = await store.recordStrikes(subject, policy, [at, refused.retryAt]);
      expect(banned?.verdict, subject).toBe(subject === 'at-the-end' ? undefined : 'banned');
    }
  });

  it('bans on a strike a cache answered under a burst rule with the answer decide gives that strike: the bucket drained to the strike, its retry the next unit', async () => {
    const clock = new ManualClock(START);
    const redisStore = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: clock });
    const memoryStore = new MemoryQuotaStore(clock);
    const policy: QuotaPolicy = { rules: [{ name: 'burst', limit: 2, windowMs: 1_000, kind: 'burst' }], ban: { strikes: 1, strikeWindowMs: 60_000, banMs: 100 } };
    for (let i = 0; i < 3; i++) expect((await redisStore.decide('k', policy)).verdict).toBe(i < 2 ? 'admitted' : 'rate_limited');
    for (let i = 0; i < 3; i++) memoryStore.decide('k', policy);
    clock.set(START + 200);
    const banned = await redisStore.recordStrikes('k', policy, [START + 200, START + 500]);
    // The ban ends at START + 300; a unit fits again at START + 500.
    expect(banned).toEqual({ verdict: 'banned', decidedAt: START + 200, remaining: [0], resetAt: [START + 500], retryAt: START + 500 });
    expect(memoryStore.decide('k', policy)).toEqual(banned);
  });

  it('with the server time, decides at the Redis clock', async () => {
    const store = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix() });
    const redisNow = async (): Promise<number> => {
      const [seconds, micros] = await shared.redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    const before = await redisNow();
    const decision = await store.decide('k', { rules: STANDARD_PLANS.free.rules });
    const after = await redisNow();
    expect(decision.decidedAt).toBeGreaterThanOrEqual(before);
    expect(decision.decidedAt).toBeLessThanOrEqual(after);
    expect(decision.resetAt[0]).toBe((Math.floor(decision.decidedAt / 1000) + 61) * 1000);
  });

  it('two instances on one Redis with the server time admit exactly the limit of 120 concurrent requests', async () => {
    const prefix = shared.freshPrefix();
    const other = await createRedisClient({ url: shared.url });
    try {
      const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 50, windowMs: 60_000 }] };
      const instances = [new RedisQuotaStore(shared.redis, { prefix }), new RedisQuotaStore(other, { prefix })];
      const decisions = await Promise.all(Array.from({ length: 120 }, (_, i) => instances[i % 2]!.decide('shared-key', policy)));
      expect(decisions.filter((d) => d.verdict === 'admitted')).toHaveLength(50);
      expect(new Set(decisions.filter((d) => d.verdict === 'admitted').map((d) => d.remaining[0])).size).toBe(50);
    } finally {
      other.disconnect();
    }
  });

  it('refuses rules the engine cannot count, as the in-memory store does', async () => {
    const store = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: new ManualClock(START) });
    await expect(store.decide('k', { rules: [{ name: 'odd', limit: 1, windowMs: 1_001 }] })).rejects.toThrow(RangeError);
    await expect(store.decide('k', { rules: [{ name: 'none', limit: 0, windowMs: 60_000 }] })).rejects.toThrow(RangeError);
    const ban = { strikes: 0, strikeWindowMs: 1_000, banMs: 1_000 };
    await expect(store.decide('k', { rules: STANDARD_PLANS.free.rules, ban })).rejects.toThrow(RangeError);
  });

  it('fails only the call whose subject key holds another type (WRONGTYPE): the other calls of the same turn are decided and counted', async () => {
    const prefix = shared.freshPrefix();
    const store = new RedisQuotaStore(shared.redis, { prefix, time: new ManualClock(START) });
    const policy = { rules: STANDARD_PLANS.free.rules };
    await shared.redis.set(`${prefix}{q:foreign}`, 'not a hash');
    // One turn: the four calls go in one script call.
    const [before, foreign, after, reset] = await Promise.allSettled([
      store.decide('before', policy),
      store.decide('foreign', policy),
      store.decide('after', policy),
      store.reset('foreign'),
    ]);
    expect(before).toMatchObject({ status: 'fulfilled', value: { verdict: 'admitted' } });
    expect(foreign).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/^WRONGTYPE/) } });
    expect(after).toMatchObject({ status: 'fulfilled', value: { verdict: 'admitted' } });
    // The reset after the failed call still ran, in order: the foreign key is gone.
    expect(reset.status).toBe('fulfilled');
    expect(await shared.redis.exists(`${prefix}{q:foreign}`)).toBe(0);
    expect((await store.peek('after', policy)).remaining[0]).toBe(STANDARD_PLANS.free.rules[0]!.limit - 1);
  });

  it('refuses a key prefix with braces', () => {
    expect(() => new RedisQuotaStore(shared.redis, { prefix: 'a{b}:' })).toThrow(RangeError);
  });
});

describe('RedisQuotaStore on a Redis of its own', () => {
  let server: RedisServerProcess;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  const withClient = async (use: (redis: Awaited<ReturnType<typeof createRedisClient>>) => Promise<void>): Promise<void> => {
    const redis = await createRedisClient({ url: server.url });
    try {
      await use(redis);
    } finally {
      redis.disconnect();
    }
  };

  it('keeps each subject in one hash under the prefix, in the hash slot of {q:<subject>}', () =>
    withClient(async (redis) => {
      // The first test on this fresh server: every key there is one the store wrote.
      const store = new RedisQuotaStore(redis, { prefix: 'shop:' });
      await store.decide('key:ab12', { rules: STANDARD_PLANS.free.rules });
      await store.decide('addr:::1', { rules: STANDARD_PLANS.free.rules });
      expect((await redis.keys('*')).sort()).toEqual(['shop:{q:addr:::1}', 'shop:{q:key:ab12}']);
    }));

  it('sends the quota calls of one turn (decisions, peeks, strikes, resets) as one script call, run in the order made', () =>
    withClient(async (redis) => {
      const store = new RedisQuotaStore(redis, { prefix: 'turn:' });
      const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }] };
      // The script is loaded by the first call; counted from here.
      await store.decide('key:warm', policy);
      await redis.config('RESETSTAT');
      const [first, second, peek, reset, afterReset, other] = await Promise.all([
        store.decide('key:a', policy),
        store.decide('key:a', policy),
        store.peek('key:a', policy),
        store.reset('key:a'),
        store.decide('key:a', policy),
        store.decide('key:b', policy),
      ]);
      expect([first, second, peek, afterReset, other].map((decision) => decision?.verdict)).toEqual(['admitted', 'admitted', 'rate_limited', 'admitted', 'admitted']);
      expect(reset).toBeUndefined();
      expect(afterReset?.remaining).toEqual([1]);
      expect(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1]).toBe('1');
    }));

  it('sends a refund as one more call of the turn\'s script: alone one round trip, beside decisions none of its own', () =>
    withClient(async (redis) => {
      const store = new RedisQuotaStore(redis, { prefix: 'refund-turn:' });
      const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }] };
      const admitted = await store.decide('key:a', policy);
      const evalshas = async (): Promise<number> => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
      await redis.config('RESETSTAT');
      await store.refund('key:a', policy, [1], admitted);
      expect(await evalshas()).toBe(1);
      const [again] = await Promise.all([store.decide('key:a', policy), store.refund('key:a', policy, [1], admitted), store.decide('key:b', policy)]);
      expect(await evalshas()).toBe(2);
      // Run in the order made: the refund came after the decision, whose unit shares the bucket it names.
      expect(again.remaining).toEqual([1]);
      expect((await store.peek('key:a', policy)).remaining).toEqual([2]);
    }));

  it('sends a batch to Redis as soon as it holds eight calls, not at the end of the turn, and the rest of the turn at its end', () =>
    withClient(async (redis) => {
      const store = new RedisQuotaStore(redis, { prefix: 'filled:' });
      const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 100, windowMs: 60_000 }] };
      await store.decide('key:warm', policy);
      const evalshas = async (): Promise<number> => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
      const before = await evalshas();
      const decisions: Promise<QuotaDecision>[] = [];
      // What the connection holds unsent after each call: a filled batch corked until the turn ends would show here.
      const unsent: number[] = [];
      for (let i = 0; i < 20; i++) {
        decisions.push(store.decide(`key:${i}`, policy));
        unsent.push(redis.stream.writableLength);
      }
      expect(unsent).toEqual(new Array(20).fill(0));
      expect((await Promise.all(decisions)).every((decision) => decision.verdict === 'admitted')).toBe(true);
      // Eight, eight, and the four left at the turn's end.
      expect((await evalshas()) - before).toBe(3);
    }));

  it('lets an idle subject expire once nothing kept matters: the longest window plus a granule, or the ban', () =>
    withClient(async (redis) => {
      const clock = new ManualClock(START);
      const store = new RedisQuotaStore(redis, { prefix: 'ttl:', time: clock });
      await store.decide('counted', { rules: STANDARD_PLANS.free.rules });
      const dayAndGranule = 61 * (DAY / 60);
      const ttl = await redis.pttl('ttl:{q:counted}');
      expect(ttl).toBeGreaterThan(dayAndGranule);
      expect(ttl).toBeLessThanOrEqual(dayAndGranule + 1_000);

      const banning: QuotaPolicy = {
        rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }],
        ban: { strikes: 1, strikeWindowMs: 1_000, banMs: 3 * DAY },
      };
      for (let i = 0; i < 3; i++) await store.decide('banned', banning);
      expect(await redis.pttl('ttl:{q:banned}')).toBeGreaterThan(3 * DAY);
    }));

  it('keeps a burst rule as its level at the time counted to, marked burst in the windows, and lets the subject expire once the bucket has drained', () =>
    withClient(async (redis) => {
      const clock = new ManualClock(START);
      const store = new RedisQuotaStore(redis, { prefix: 'burst:', time: clock });
      const policy: QuotaPolicy = { rules: [{ name: 'burst', limit: 4, windowMs: 100_000, kind: 'burst' }] };
      await store.decide('k', policy);
      await store.decide('k', policy);
      // Two units of 100000 unit-ms, draining 4 a millisecond: empty 50 s on, then the margin.
      expect(await redis.hmget('burst:{q:k}', 'w', 'la', 'r1')).toEqual(['b100000', String(START), '200000']);
      const ttl = await redis.pttl('burst:{q:k}');
      expect(ttl).toBeGreaterThan(51_000 - 10_000);
      expect(ttl).toBeLessThanOrEqual(51_000);
      clock.advance(100);
      expect(await store.peek('k', policy)).toMatchObject({ remaining: [2] });
      expect(await redis.hget('burst:{q:k}', 'r1')).toBe('200000');
      await store.decide('k', policy);
      expect(await redis.hmget('burst:{q:k}', 'la', 'r1')).toEqual([String(START + 100), '299600']);
    }));

  it("moves a busy subject's expiry only when it must move later: once a granule of its rules, however many requests", () =>
    withClient(async (redis) => {
      const clock = new ManualClock(START);
      const store = new RedisQuotaStore(redis, { prefix: 'expiry:' });
      const timed = new RedisQuotaStore(redis, { prefix: 'expiry:', time: clock });
      const minute: QuotaPolicy = { rules: [{ name: 'minute', limit: 1_000_000, windowMs: 60_000 }] };
      const pexpires = async (): Promise<number> => Number(/cmdstat_pexpire:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
      const key = 'expiry:{q:busy}';
      const expirySet = async (): Promise<number> => Number(await redis.hget(key, 'ex'));
      // Warm the script; counted from here.
      await store.decide('warm', minute);
      const before = await pexpires();
      await timed.decide('busy', minute);
      // Its one counted bucket drops 61 granules (1 s each) after START, plus the margin.
      expect(await expirySet()).toBe(START + 61_000 + 1_000);
      for (let i = 0; i < 20; i++) {
        clock.advance(10);
        await timed.decide('busy', minute);
      }
      // Twenty more decisions within the first granule: the expiry set by the first still covers them.
      expect((await pexpires()) - before).toBe(1);
      expect(await expirySet()).toBe(START + 62_000);

      // The next granule: its bucket drops a second later, so the expiry moves a second on.
      clock.advance(1_000);
      await timed.decide('busy', minute);
      expect((await pexpires()) - before).toBe(2);
      expect(await expirySet()).toBe(START + 63_000);
      // Redis's own TTL, from this moment of the clock (START + 1.2 s): that expiry, no earlier.
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(63_000 - 1_200 - 1_000);
      expect(ttl).toBeLessThanOrEqual(63_000 - 1_200);
    }));

  it('keeps a subject bounded whatever its traffic: at most 61 buckets per rule and the last strikes', () =>
    withClient(async (redis) => {
      const clock = new ManualClock(START);
      const store = new RedisQuotaStore(redis, { prefix: 'bounded:', time: clock });
      const busy: QuotaPolicy = { rules: [{ name: 'minute', limit: 1_000_000, windowMs: 60_000 }] };
      const striking: QuotaPolicy = {
        rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }],
        ban: { strikes: 5, strikeWindowMs: 1, banMs: 1 },
      };
      const verdicts: string[] = [];
      // Batches of pipelined calls, each well within the client's command timeout.
      for (let batch = 0; batch < 12; batch++) {
        const decisions: Promise<QuotaDecision>[] = [];
        for (let i = 0; i < 500; i++) {
          clock.advance(i % 3 === 0 ? 700 : 1);
          decisions.push(store.decide('busy', busy), store.decide('striking', striking));
        }
        for (const decision of await Promise.all(decisions)) verdicts.push(decision.verdict);
      }
      expect(verdicts.filter((verdict) => verdict === 'rate_limited').length).toBeGreaterThan(5_000);
      // Every second of the last minute holds requests: exactly the 61 counted buckets are
      // kept, packed as a 4-byte total and 12 bytes per bucket.
      expect((await redis.hgetBuffer('bounded:{q:busy}', 'r1'))?.length).toBe(4 + 12 * 61);
      // Besides the ring: the windows (w), the time counted to (la), the expiry set (ex), the layout (v) and when it was made (sa).
      expect(await redis.hlen('bounded:{q:busy}')).toBe(6);
      // The ring's size, then the last 5 strikes.
      expect((await redis.hget('bounded:{q:striking}', 'st'))?.split(' ')).toHaveLength(1 + 5);
      expect(await redis.hlen('bounded:{q:striking}')).toBe(8);
    }));

  it('calls the script by its SHA, and after SCRIPT FLUSH resends it and keeps counting', () =>
    withClient(async (redis) => {
      const store = new RedisQuotaStore(redis, { prefix: 'noscript:', time: new ManualClock(START) });
      const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 5, windowMs: 60_000 }] };
      await redis.config('RESETSTAT');
      const remaining: number[] = [];
      for (let i = 0; i < 3; i++) remaining.push((await store.decide('k', policy)).remaining[0]!);
      expect(await redis.info('commandstats')).toMatch(/cmdstat_evalsha:calls=2,/);

      await redis.script('FLUSH');
      for (let i = 0; i < 3; i++) remaining.push((await store.decide('k', policy)).remaining[0]!);
      expect(remaining).toEqual([4, 3, 2, 1, 0, 0]);
    }));
});

describe('RedisQuotaStore through the testing kit’s property', () => {
  it('two instances on one Redis decide every schedule as the reference model does, request by request', async () => {
    // One prefix a case, shared by both instances: what they count, they count together.
    const prefixes = new Map<Clock, string>();
    await quotaStoreAgreesWithModel(
      async (clock) => {
        const prefix = prefixes.get(clock) ?? shared.freshPrefix();
        prefixes.set(clock, prefix);
        return { store: new RedisQuotaStore(shared.redis, { prefix, time: clock }), cleanup: async () => {} };
      },
      { instances: 2, numRuns: runs(100) },
    );
  });
});
