import { randomUUID } from 'node:crypto';
import type { QuotaDecision } from '../domain/quota/quota-decision.js';
import type { QuotaPolicy } from '../domain/quota/quota-rule.js';
import type { Clock } from '../ports/clock.js';
import type { QuotaStore } from '../ports/quota-store.js';
import { lacks, like, rejects, same } from './assertions.js';
import { checkOf, type ContractCheck, type Disposable } from './check.js';
import { ManualClock } from './manual-clock.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** A whole minute (and a whole day granule): buckets start exactly here. */
const START = 1_767_225_600_000;

const minuteOnly = (limit: number): QuotaPolicy => ({ rules: [{ name: 'minute', limit, windowMs: MINUTE }] });
const twoRules: QuotaPolicy = {
  rules: [
    { name: 'minute', limit: 3, windowMs: MINUTE },
    { name: 'day', limit: 5, windowMs: DAY },
  ],
};
const banning: QuotaPolicy = {
  rules: [{ name: 'minute', limit: 2, windowMs: MINUTE }],
  ban: { strikes: 3, strikeWindowMs: 30_000, banMs: 120_000 },
};

export interface QuotaStoreContractContext extends Disposable {
  readonly store: QuotaStore;
}

/**
 * What every QuotaStore must do, whatever holds the counters: one check per rule. `create` gets
 * the clock the store must read its time from (the checks move it) and answers a store, fresh or
 * shared (every check uses subjects of its own), and how to let it go.
 */
export const quotaStoreChecks = (create: (clock: Clock) => Promise<QuotaStoreContractContext>): ContractCheck[] => {
  interface Context extends QuotaStoreContractContext {
    readonly clock: ManualClock;
    subject(name: string): string;
    decideTimes(name: string, policy: QuotaPolicy, count: number): Promise<QuotaDecision[]>;
  }
  const setup = async (): Promise<Context> => {
    const clock = new ManualClock(START);
    const made = await create(clock);
    const { store } = made;
    const prefix = randomUUID();
    const subject = (name: string): string => `${prefix}:${name}`;
    const decideTimes = async (name: string, policy: QuotaPolicy, count: number): Promise<QuotaDecision[]> => {
      const decisions: QuotaDecision[] = [];
      for (let i = 0; i < count; i++) decisions.push(await store.decide(subject(name), policy));
      return decisions;
    };
    return { store, clock, subject, decideTimes, cleanup: async () => made.cleanup() };
  };
  const check = (name: string, body: (context: Context) => Promise<void>): ContractCheck => checkOf(name, setup, body);

  return [
    check('admits up to the limit, then refuses with the time the oldest request stops counting', async ({ store, clock, subject, decideTimes }) => {
      const admitted = await decideTimes('a', minuteOnly(3), 3);
      same(admitted.map((d) => d.verdict), ['admitted', 'admitted', 'admitted']);
      clock.advance(10_500);
      const refused = await store.decide(subject('a'), minuteOnly(3));
      same(refused, {
        verdict: 'rate_limited',
        decidedAt: START + 10_500,
        remaining: [0],
        resetAt: [START + 61_000],
        retryAt: START + 61_000,
      });
      clock.set(START + 60_999);
      same((await store.decide(subject('a'), minuteOnly(3))).verdict, 'rate_limited');
      clock.set(START + 61_000);
      same((await store.decide(subject('a'), minuteOnly(3))).verdict, 'admitted');
    }),

    check('reports remaining and reset after each admitted request', async ({ store, clock, subject }) => {
      const first = await store.decide(subject('a'), minuteOnly(3));
      same(first, {
        verdict: 'admitted',
        decidedAt: START,
        remaining: [2],
        resetAt: [START + 61_000],
        retryAt: START,
      });
      clock.advance(5_250);
      const second = await store.decide(subject('a'), minuteOnly(3));
      same(second.remaining, [1]);
      same(second.resetAt, [START + 61_000]);
      clock.set(START + 61_000);
      const third = await store.decide(subject('a'), minuteOnly(3));
      same(third.remaining, [1]);
      same(third.resetAt, [START + 66_000]);
    }),

    check('a denied request consumes nothing', async ({ store, clock, subject, decideTimes }) => {
      await decideTimes('a', minuteOnly(2), 2);
      for (let i = 0; i < 5; i++) {
        clock.advance(1_000);
        same((await store.decide(subject('a'), minuteOnly(2))).verdict, 'rate_limited');
      }
      clock.set(START + 61_000);
      const again = await decideTimes('a', minuteOnly(2), 3);
      same(again.map((d) => d.verdict), ['admitted', 'admitted', 'rate_limited']);
    }),

    check('when one rule refuses, the other rule is not spent', async ({ clock, decideTimes }) => {
      await decideTimes('a', twoRules, 3);
      const refused = await decideTimes('a', twoRules, 4);
      for (const decision of refused) {
        same(decision.verdict, 'rate_limited');
        same(decision.remaining, [0, 2]);
      }
      clock.set(START + 61_000);
      const next = await decideTimes('a', twoRules, 3);
      same(next.map((d) => d.verdict), ['admitted', 'admitted', 'rate_limited']);
      same(next[1]?.remaining, [1, 0]);
      // The day rule refuses now: its oldest bucket (24 min long) drops at START + 61 granules.
      same(next[2]?.retryAt, START + 61 * (DAY / 60));
      same(next[2]?.resetAt, [START + 122_000, START + 61 * (DAY / 60)]);
    }),

    check('a rule that counts nothing resets now', async ({ store, clock, subject }) => {
      const policy: QuotaPolicy = {
        rules: [
          { name: 'minute', limit: 1, windowMs: MINUTE },
          { name: 'day', limit: 1, windowMs: DAY },
        ],
      };
      await store.decide(subject('a'), policy);
      clock.set(START + 2 * MINUTE);
      same(await store.decide(subject('a'), policy), {
        verdict: 'rate_limited',
        decidedAt: START + 2 * MINUTE,
        remaining: [1, 0],
        resetAt: [START + 2 * MINUTE, START + 61 * (DAY / 60)],
        retryAt: START + 61 * (DAY / 60),
      });
    }),

    check('the first refusal is no strike; strikes before Retry-After ban; the ban ends after banMs', async ({ store, clock, subject, decideTimes }) => {
      await decideTimes('a', banning, 2);
      const first = await store.decide(subject('a'), banning);
      same(first.verdict, 'rate_limited');
      clock.advance(1_000);
      const strikes = await decideTimes('a', banning, 3);
      same(strikes.map((d) => d.verdict), ['rate_limited', 'rate_limited', 'banned']);
      const bannedAt = START + 1_000;
      same(strikes[2], {
        verdict: 'banned',
        decidedAt: bannedAt,
        remaining: [0],
        resetAt: [bannedAt + 120_000],
        retryAt: bannedAt + 120_000,
      });
      clock.set(bannedAt + 119_999);
      like(await store.decide(subject('a'), banning), { verdict: 'banned', retryAt: bannedAt + 120_000 });
      clock.set(bannedAt + 120_000);
      const recovered = await decideTimes('a', banning, 3);
      same(recovered.map((d) => d.verdict), ['admitted', 'admitted', 'rate_limited']);
    }),

    check("a ban's Retry-After reaches past the ban to when a spent day rule admits again, on every answer during the ban", async ({ store, clock, subject, decideTimes }) => {
      const policy: QuotaPolicy = { rules: twoRules.rules, ban: { strikes: 3, strikeWindowMs: 30_000, banMs: 120_000 } };
      await decideTimes('a', policy, 3);
      clock.set(START + 61_000);
      await decideTimes('a', policy, 2);
      // The day rule's 5 sit in the day granule of START, which leaves the window 61 granules later.
      const dayRetry = START + 61 * (DAY / 60);
      like(await store.decide(subject('a'), policy), { verdict: 'rate_limited', retryAt: dayRetry });
      const strikes = await decideTimes('a', policy, 3);
      same(strikes.map((d) => d.verdict), ['rate_limited', 'rate_limited', 'banned']);
      const bannedAt = START + 61_000;
      const banned = { verdict: 'banned', remaining: [0, 0], resetAt: [bannedAt + 120_000, dayRetry], retryAt: dayRetry };
      same(strikes[2], { ...banned, decidedAt: bannedAt });
      clock.set(bannedAt + 119_999);
      same(await store.decide(subject('a'), policy), { ...banned, decidedAt: bannedAt + 119_999 });
      clock.set(dayRetry);
      like(await store.decide(subject('a'), policy), { verdict: 'admitted', remaining: [2, 4] });
    }),

    check('a refusal is a strike only before the Retry-After told, in whole seconds, has passed', async ({ store, clock, subject }) => {
      const oneStrike: QuotaPolicy = { ...minuteOnly(1), ban: { strikes: 1, strikeWindowMs: 30_000, banMs: 120_000 } };
      for (const [name, secondRefusalAt, verdict] of [
        ['late', START + 61_500, 'rate_limited'],
        ['early', START + 61_499, 'banned'],
      ] as const) {
        clock.set(START);
        same((await store.decide(subject(name), oneStrike)).verdict, 'admitted');
        clock.set(START + 500);
        // Retry-After 61 s (60.5 s rounded up): told to come back at START + 61_500.
        like(await store.decide(subject(name), oneStrike), {
          verdict: 'rate_limited',
          retryAt: START + 61_000,
        });
        clock.set(START + 61_000);
        same((await store.decide(subject(name), oneStrike)).verdict, 'admitted');
        clock.set(secondRefusalAt);
        same((await store.decide(subject(name), oneStrike)).verdict, verdict);
      }
    }),

    check('strikes spread wider than the strike window do not ban', async ({ store, clock, subject, decideTimes }) => {
      const slow: QuotaPolicy = {
        rules: [{ name: 'day', limit: 1, windowMs: DAY }],
        ban: { strikes: 3, strikeWindowMs: 10_000, banMs: 120_000 },
      };
      await decideTimes('a', slow, 2);
      for (let i = 0; i < 10; i++) {
        clock.advance(5_001);
        same((await store.decide(subject('a'), slow)).verdict, 'rate_limited');
      }
    }),

    check('a request of cost c is admitted while every rule has c left, spends c of each, and is refused with the time c fit again', async ({ store, clock, subject }) => {
      const a = subject('weighed');
      like(await store.decide(a, twoRules, 2), { verdict: 'admitted', remaining: [1, 3] });
      clock.advance(1_000);
      like(await store.decide(a, twoRules, 1), { verdict: 'admitted', remaining: [0, 2] });
      clock.advance(1_000);
      // 2 of the minute's 3 counted since START and 1 since START + 1 s: cost 2 fits once the first two drop.
      same(await store.decide(a, twoRules, 2), {
        verdict: 'rate_limited',
        decidedAt: START + 2_000,
        remaining: [0, 2],
        resetAt: [START + 61_000, START + DAY + 1_440_000],
        retryAt: START + 61_000,
      });
      clock.set(START + 61_000);
      like(await store.decide(a, twoRules, 2), { verdict: 'admitted', remaining: [0, 0] });
    }),

    check('a request with per-rule costs is decided and counted only by the rules it matches, each by its own cost: a rule of cost 0 neither refuses nor is spent, and reports its standing', async ({ store, clock, subject }) => {
      const a = subject('per-rule');
      const searchRule: QuotaPolicy = {
        rules: [
          { name: 'all', limit: 5, windowMs: MINUTE },
          { name: 'search', limit: 2, windowMs: MINUTE },
        ],
      };
      same(await store.decide(a, searchRule, [2, 0]), {
        verdict: 'admitted',
        decidedAt: START,
        remaining: [3, 2],
        resetAt: [START + 61_000, START],
        retryAt: START,
      });
      clock.advance(1_000);
      like(await store.decide(a, searchRule, [1, 2]), { verdict: 'admitted', remaining: [2, 0], resetAt: [START + 61_000, START + 62_000] });
      clock.advance(1_000);
      // The search rule is spent: a search is refused until its units drop, and spends nothing.
      same(await store.decide(a, searchRule, [1, 1]), {
        verdict: 'rate_limited',
        decidedAt: START + 2_000,
        remaining: [2, 0],
        resetAt: [START + 61_000, START + 62_000],
        retryAt: START + 62_000,
      });
      // A request that does not match it is admitted, and leaves it as it stands.
      like(await store.decide(a, searchRule, [2, 0]), { verdict: 'admitted', remaining: [0, 0], resetAt: [START + 61_000, START + 62_000] });
      // Matching no rule: admitted, nothing counted, even with every rule spent.
      like(await store.decide(a, searchRule, [0, 0]), { verdict: 'admitted', remaining: [0, 0] });
      like(await store.peek(a, searchRule, 1), { verdict: 'rate_limited', remaining: [0, 0], retryAt: START + 62_000 });
      // One number is that cost under every rule, as [1, 1] is.
      clock.set(START + 62_000);
      same(await store.decide(a, searchRule, 1), {
        verdict: 'admitted',
        decidedAt: START + 62_000,
        remaining: [2, 1],
        resetAt: [START + 63_000, START + 123_000],
        retryAt: START + 62_000,
      });
    }),

    check('a shadow rule never refuses: it counts every admitted request it matches, by its cost, and lists itself in shadowed when it had no room, nor does it strike or ban', async ({ store, clock, subject }) => {
      const a = subject('shadowed');
      const shadowSearch: QuotaPolicy = {
        rules: [
          { name: 'all', limit: 3, windowMs: MINUTE },
          { name: 'search', limit: 1, windowMs: MINUTE, mode: 'shadow' },
        ],
        ban: { strikes: 1, strikeWindowMs: 600_000, banMs: 900_000 },
      };
      same(await store.decide(a, shadowSearch, [1, 1]), { verdict: 'admitted', decidedAt: START, remaining: [2, 0], resetAt: [START + 61_000, START + 61_000], retryAt: START });
      same(await store.decide(a, shadowSearch, [1, 1]), {
        verdict: 'admitted',
        decidedAt: START,
        remaining: [1, 0],
        resetAt: [START + 61_000, START + 61_000],
        retryAt: START,
        shadowed: [1],
      });
      like(await store.peek(a, shadowSearch, [0, 1]), { verdict: 'admitted', remaining: [1, 0], shadowed: [1] });
      lacks(await store.peek(a, shadowSearch, [1, 0]), 'shadowed');
      like(await store.decide(a, shadowSearch, [1, 1]), { verdict: 'admitted', remaining: [0, 0], shadowed: [1] });
      // The enforced rule refuses; its retry is its own, whatever the shadow rule counted.
      clock.advance(30_000);
      same(await store.decide(a, shadowSearch, [1, 1]), {
        verdict: 'rate_limited',
        decidedAt: START + 30_000,
        remaining: [0, 0],
        resetAt: [START + 61_000, START + 61_000],
        retryAt: START + 61_000,
        shadowed: [1],
      });
      // Requests the enforced rule does not weigh are admitted whatever the shadow rule says: no strike, no ban.
      for (let i = 0; i < 3; i++) like(await store.decide(a, shadowSearch, [0, 1]), { verdict: 'admitted', shadowed: [1] });
      clock.set(START + 61_000);
      like(await store.decide(a, shadowSearch, [1, 1]), { verdict: 'admitted', remaining: [2, 0], shadowed: [1] });
    }),

    check('refuses a cost that is not an integer from 0 to each rule\'s limit, or not one per rule, with a RangeError', async ({ store, subject }) => {
      for (const cost of [[1, 6], [-1, 0], [0.5, 1], [1], [1, 1, 1], 4, -1]) {
        await rejects(async () => store.decide(subject('bad-cost'), twoRules, cost), RangeError, JSON.stringify(cost));
        await rejects(async () => store.peek(subject('bad-cost'), twoRules, cost), RangeError, JSON.stringify(cost));
      }
      same((await store.peek(subject('bad-cost'), twoRules)).remaining, [3, 5]);
    }),

    check('a peek answers what a request of its cost would get, with the room before it, and spends nothing', async ({ store, subject, decideTimes }) => {
      const a = subject('peeked');
      same(await store.peek(a, twoRules), { verdict: 'admitted', decidedAt: START, remaining: [3, 5], resetAt: [START, START], retryAt: START, strikes: 0 });
      await decideTimes('peeked', twoRules, 2);
      like(await store.peek(a, twoRules, 2), { verdict: 'rate_limited', remaining: [1, 3], retryAt: START + 61_000 });
      like(await store.peek(a, twoRules, 1), { verdict: 'admitted', remaining: [1, 3], retryAt: START });
      for (let i = 0; i < 5; i++) await store.peek(a, twoRules);
      like(await store.decide(a, twoRules), { verdict: 'admitted', remaining: [0, 2] });
    }),

    check('peeks strike nothing: a refused subject peeking before its Retry-After is never banned', async ({ store, subject, decideTimes }) => {
      const a = subject('peeking');
      await decideTimes('peeking', banning, 3);
      for (let i = 0; i < 10; i++) same((await store.peek(a, banning)).verdict, 'rate_limited');
      same((await store.decide(a, banning)).verdict, 'rate_limited');
    }),

    check("a peek counts the strikes within the strike window, the same on every peek, none once they are older than the window, none during a ban, and from none after it", async ({ store, clock, subject, decideTimes }) => {
      const a = subject('struck');
      const strikesAt = async (at: number): Promise<number | undefined> => {
        clock.set(at);
        return (await store.peek(a, banning)).strikes;
      };
      await decideTimes('struck', banning, 3);
      same(await strikesAt(START), 0, 'the first refusal is no strike');
      clock.set(START + 1_000);
      await store.decide(a, banning);
      same(await strikesAt(START + 1_000), 1);
      same(await strikesAt(START + 1_000), 1, 'a peek strikes nothing');
      clock.set(START + 2_000);
      await store.decide(a, banning);
      same(await strikesAt(START + 2_000), 2);
      // The strike window is 30 s: the strike at 1 s stops counting at 31 s.
      same(await strikesAt(START + 30_999), 2);
      same(await strikesAt(START + 31_000), 1);
      same(await strikesAt(START + 32_000), 0);
      // Three strikes within 30 s ban, the strikes at 1 s and 2 s long out of the window.
      for (const at of [START + 32_000, START + 33_000]) {
        clock.set(at);
        same((await store.decide(a, banning)).verdict, 'rate_limited');
      }
      same(await strikesAt(START + 33_000), 2);
      clock.set(START + 34_000);
      same((await store.decide(a, banning)).verdict, 'banned');
      like(await store.peek(a, banning), { verdict: 'banned', strikes: 0 });
      same(await strikesAt(START + 153_999), 0);
      clock.set(START + 154_000);
      like(await store.peek(a, banning), { verdict: 'admitted', strikes: 0 });
      const after = await decideTimes('struck', banning, 4);
      same(after.map((d) => d.verdict), ['admitted', 'admitted', 'rate_limited', 'rate_limited']);
      same(await strikesAt(START + 154_000), 1, "the strikes before the ban do not count after it");
    }),

    check('reset forgets a subject at once: its counters, its strikes and its ban', async ({ store, subject, decideTimes }) => {
      const a = subject('reset');
      await decideTimes('reset', banning, 5);
      same((await store.decide(a, banning)).verdict, 'banned');
      const other = subject('kept');
      await store.decide(other, banning);
      await store.reset(a);
      like(await store.peek(a, banning), { verdict: 'admitted', remaining: [2] });
      same((await decideTimes('reset', banning, 3)).map((d) => d.verdict), ['admitted', 'admitted', 'rate_limited']);
      like(await store.peek(other, banning), { remaining: [1] });
      await store.reset(subject('never-seen'));
    }),

    check('subjects are independent', async ({ store, subject, decideTimes }) => {
      await decideTimes('a', banning, 2);
      await decideTimes('a', banning, 5);
      same((await store.decide(subject('a'), banning)).verdict, 'banned');
      const other = await decideTimes('b', banning, 3);
      same(other.map((d) => d.verdict), ['admitted', 'admitted', 'rate_limited']);
      same(other[0]?.remaining, [1]);
    }),

    check('a burst rule admits its whole bucket at once, then one unit every windowMs / limit ms, a refusal told when the next fits', async ({ store, clock, subject }) => {
      const policy: QuotaPolicy = { rules: [{ name: 'burst', limit: 3, windowMs: 1_000, kind: 'burst' }] };
      const at = async (ms: number, cost = 1): Promise<QuotaDecision> => {
        clock.set(START + ms);
        return store.decide(subject('a'), policy, cost);
      };
      same((await Promise.all([at(0), at(0), at(0)])).map(({ remaining }) => remaining[0]), [2, 1, 0]);
      // A unit refills every 333 1/3 ms: the first at 334 ms, whole milliseconds rounded up.
      same(await at(333), { verdict: 'rate_limited', decidedAt: START + 333, remaining: [0], resetAt: [START + 334], retryAt: START + 334 });
      like(await at(334), { verdict: 'admitted', remaining: [0], resetAt: [START + 667] });
      like(await at(1_000, 2), { verdict: 'admitted', remaining: [0], resetAt: [START + 1_334] });
      like(await store.peek(subject('a'), policy), { verdict: 'rate_limited', remaining: [0], retryAt: START + 1_334 });
    }),

    check('a burst rule beside a window: admitted only when both have room, counted by both, a shadow bucket reporting what it had no room for', async ({ store, clock, subject }) => {
      const policy: QuotaPolicy = {
        rules: [
          { name: 'minute', limit: 4, windowMs: MINUTE },
          { name: 'burst', limit: 2, windowMs: 500, kind: 'burst' },
          { name: 'trial', limit: 1, windowMs: 10_000, kind: 'burst', mode: 'shadow' },
        ],
      };
      const decisions: QuotaDecision[] = [];
      for (const ms of [0, 0, 0, 250, 500, 750]) {
        clock.set(START + ms);
        decisions.push(await store.decide(subject('a'), policy));
      }
      same(decisions.map(({ verdict }) => verdict), ['admitted', 'admitted', 'rate_limited', 'admitted', 'admitted', 'rate_limited']);
      same(decisions.map(({ remaining }) => remaining), [
        [3, 1, 0],
        [2, 0, 0],
        [2, 0, 0],
        [1, 0, 0],
        [0, 0, 0],
        [0, 1, 0],
      ]);
      // A refusal too tells the shadow rules that had no room for it.
      same(decisions.map(({ shadowed }) => shadowed), [undefined, [2], [2], [2], [2], [2]]);
      // The window refuses the last; the bucket, drained to one unit, would have admitted it.
      same(decisions[5]?.retryAt, START + 61_000);
    }),

    check('a shadow bucket counts past its size, its level stopping at 2^53 - 1: further requests move its reset no later', async ({ store, subject }) => {
      const policy: QuotaPolicy = {
        rules: [
          { name: 'minute', limit: 10, windowMs: MINUTE },
          { name: 'huge', limit: 1, windowMs: 2 ** 52, kind: 'burst', mode: 'shadow' },
        ],
      };
      const decisions: QuotaDecision[] = [];
      for (let i = 0; i < 3; i++) decisions.push(await store.decide(subject('a'), policy));
      same(decisions.map(({ verdict, remaining, shadowed }) => ({ verdict, remaining, shadowed })), [
        { verdict: 'admitted', remaining: [9, 0], shadowed: undefined },
        { verdict: 'admitted', remaining: [8, 0], shadowed: [1] },
        { verdict: 'admitted', remaining: [7, 0], shadowed: [1] },
      ]);
      // Empty again once the level drains, 1 unit-ms a millisecond: 2^52 ms after one unit, then 2^53 - 1 however many more it counts.
      same(decisions.map(({ resetAt }) => resetAt[1]), [START + 2 ** 52, START + Number.MAX_SAFE_INTEGER, START + Number.MAX_SAFE_INTEGER]);
    }),

    check('150 concurrent requests against a limit of 100 admit exactly 100', async ({ store, subject }) => {
      const decisions = await Promise.all(
        Array.from({ length: 150 }, async () => store.decide(subject('a'), minuteOnly(100))),
      );
      same((decisions.filter((d) => d.verdict === 'admitted')).length, 100);
      same((decisions.filter((d) => d.verdict === 'rate_limited')).length, 50);
      const remaining = decisions.filter((d) => d.verdict === 'admitted').map((d) => d.remaining[0]);
      same(new Set(remaining).size, 100);
    }),

    check('300 concurrent requests over three subjects, interleaved, are each counted on their own subject', async ({ store, subject }) => {
      const names = ['a', 'b', 'c'];
      const decisions = await Promise.all(Array.from({ length: 300 }, async (_, i) => store.decide(subject(names[i % 3] ?? 'a'), minuteOnly(90))));
      for (const [index] of names.entries()) {
        const own = decisions.filter((_, i) => i % 3 === index);
        same(own.filter((d) => d.verdict === 'admitted').map((d) => d.remaining[0]).sort((x = 0, y = 0) => y - x), Array.from({ length: 90 }, (_, i) => 89 - i));
        same((own.filter((d) => d.verdict === 'rate_limited')).length, 10);
      }
    }),

    check('concurrent requests are not banned beyond the rule: 150 at once on a banning policy admit exactly 100', async ({ store, subject }) => {
      const policy: QuotaPolicy = { ...minuteOnly(100), ban: { strikes: 20, strikeWindowMs: 600_000, banMs: 900_000 } };
      const decisions = await Promise.all(Array.from({ length: 150 }, async () => store.decide(subject('a'), policy)));
      same((decisions.filter((d) => d.verdict === 'admitted')).length, 100);
      // One first refusal, then strikes: the 20th bans.
      same((decisions.filter((d) => d.verdict === 'rate_limited')).length, 20);
      same((decisions.filter((d) => d.verdict === 'banned')).length, 30);
    }),

    check('a refund gives a request its units back in the bucket that counted it: the rule admits that much again, and its reset moves on when that was its oldest bucket', async ({ store, clock, subject, decideTimes }) => {
      const [first] = await decideTimes('a', minuteOnly(3), 1);
      clock.advance(2_000);
      await decideTimes('a', minuteOnly(3), 2);
      await store.refund(subject('a'), minuteOnly(3), [1], first!);
      // The oldest bucket emptied: the rule's remaining next rises when the second one drops.
      like(await store.peek(subject('a'), minuteOnly(3)), { remaining: [1], resetAt: [START + 63_000] });
      same((await decideTimes('a', minuteOnly(3), 2)).map((d) => d.verdict), ['admitted', 'rate_limited']);
    }),

    check('a refund takes back at most what the request’s bucket holds, from no other bucket, and nothing once its bucket has dropped out', async ({ store, clock, subject, decideTimes }) => {
      const [early] = await decideTimes('a', minuteOnly(5), 1);
      clock.advance(1_000);
      const [late] = await decideTimes('a', minuteOnly(5), 2);
      // Five asked: the bucket of the first holds one, and the second's two stay counted.
      await store.refund(subject('a'), minuteOnly(5), [5], early!);
      same((await store.peek(subject('a'), minuteOnly(5))).remaining, [3]);
      await store.refund(subject('a'), minuteOnly(5), [5], early!);
      same((await store.peek(subject('a'), minuteOnly(5))).remaining, [3]);
      // The second's bucket stops being counted at START + 62 s: a refund then finds nothing to give back.
      clock.set(START + 62_000);
      await decideTimes('a', minuteOnly(5), 1);
      await store.refund(subject('a'), minuteOnly(5), [2], late!);
      same((await store.peek(subject('a'), minuteOnly(5))).remaining, [4]);
    }),

    check('a refund gives back under each rule the units it names, and nothing for a refusal', async ({ store, subject, decideTimes }) => {
      const [admitted] = await decideTimes('a', twoRules, 3);
      const refused = await store.decide(subject('a'), twoRules);
      same(refused.verdict, 'rate_limited');
      await store.refund(subject('a'), twoRules, [1, 1], refused);
      same((await store.peek(subject('a'), twoRules)).remaining, [0, 2]);
      await store.refund(subject('a'), twoRules, [0, 1], admitted!);
      same((await store.peek(subject('a'), twoRules)).remaining, [0, 3]);
    }),

    check('a refund reaches only the state that counted its request: after a reset, or under other windows since, it gives nothing back', async ({ store, clock, subject, decideTimes }) => {
      const [beforeReset] = await decideTimes('a', minuteOnly(3), 1);
      await store.reset(subject('a'));
      clock.advance(1);
      await decideTimes('a', minuteOnly(3), 2);
      await store.refund(subject('a'), minuteOnly(3), [1], beforeReset!);
      same((await store.peek(subject('a'), minuteOnly(3))).remaining, [1]);

      const [beforeWindows] = await decideTimes('b', minuteOnly(3), 1);
      await store.decide(subject('b'), { rules: [{ name: 'hour', limit: 3, windowMs: 60 * MINUTE }] });
      await store.refund(subject('b'), minuteOnly(3), [1], beforeWindows!);
      same((await store.peek(subject('b'), { rules: [{ name: 'hour', limit: 3, windowMs: 60 * MINUTE }] })).remaining, [2]);
    }),

    check('a refund during a ban changes neither the ban nor its Retry-After; what it gave back is there once the ban ends', async ({ store, clock, subject, decideTimes }) => {
      const policy: QuotaPolicy = {
        rules: [
          { name: 'minute', limit: 2, windowMs: MINUTE },
          { name: 'day', limit: 3, windowMs: DAY },
        ],
        ban: { strikes: 2, strikeWindowMs: 30_000, banMs: 120_000 },
      };
      const [first] = await decideTimes('a', policy, 2);
      const answers = await decideTimes('a', policy, 3);
      same(answers.map((d) => d.verdict), ['rate_limited', 'rate_limited', 'banned']);
      const ban = answers[2]!;
      await store.refund(subject('a'), policy, [1, 1], first!);
      same(await store.decide(subject('a'), policy), ban);
      clock.set(ban.retryAt);
      // The day rule kept one of the two, so two more fit where one would have.
      same((await decideTimes('a', policy, 3)).map((d) => d.verdict), ['admitted', 'admitted', 'rate_limited']);
    }),
  ];
};
