import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import type { BanPolicy, QuotaRule } from '../../src/domain/quota/quota-rule.js';
import { type RateLimitCheck, createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import { ManualClock } from '../support/manual-clock.js';
import { scheduleArb } from '../../src/testing/quota-schedules.js';
import { useTestRedis } from '../support/use-test-redis.js';
import { onTheWire, serverHeaders } from '../domain/rate-limiter-support.js';
import { decidingStore } from '../support/quota-store-doubles.js';
import { runs } from '../support/property-runs.js';

// Every key goes under this file's own prefix (petstore-test:<random>:), deleted after the file: never FLUSHDB.
const shared = useTestRedis();
const T0 = 1_800_000_000_000;
const S0 = T0 / 1000;

const RULES: readonly QuotaRule[] = [
  { name: 'minute', limit: 3, windowMs: 60_000 },
  { name: 'hour', limit: 5, windowMs: 3_600_000 },
];

const rulesArb: fc.Arbitrary<QuotaRule[]> = fc
  .array(fc.record({ seconds: fc.constantFrom(3, 6, 60, 3600), limit: fc.integer({ min: 1, max: 5 }) }), { minLength: 1, maxLength: 3 })
  .map((drafts) => drafts.map(({ seconds, limit }, i) => ({ name: `rule${i}`, limit, windowMs: seconds * 1000 })));

const banArb: fc.Arbitrary<BanPolicy> = fc.record({
  strikes: fc.integer({ min: 1, max: 4 }),
  strikeWindowMs: fc.integer({ min: 1, max: 60_000 }),
  banMs: fc.integer({ min: 1, max: 600_000 }),
});

describe('createRateLimiter over RedisQuotaStore', () => {
  it('answers with a promise: admits the limit of every rule, refuses with Retry-After, and bans, with the header fields the server writes', async () => {
    const clock = new ManualClock(T0);
    const store = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: clock });
    const limiter = createRateLimiter({ rules: RULES, store, ban: { strikes: 2, strikeWindowMs: 60_000, banMs: 600_000 } });
    const checked = async (): Promise<RateLimitCheck> => {
      const pending = limiter.check('ip:198.51.100.7');
      expect(pending).toBeInstanceOf(Promise);
      const answer = await pending;
      expect(onTheWire(answer.headers)).toEqual(serverHeaders(limiter.policy, answer.decision));
      return answer;
    };

    expect((await checked()).headers).toStrictEqual({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': String(S0 + 61),
      'RateLimit-Policy': '"minute";q=3;w=60, "hour";q=5;w=3600',
      RateLimit: '"minute";r=2;t=61, "hour";r=4;t=3660',
    });
    await checked();
    await checked();
    clock.advance(30_000);
    const refused = await checked();
    expect(refused.allowed).toBe(false);
    expect(refused.headers).toMatchObject({ 'X-RateLimit-Remaining': '0', RateLimit: '"minute";r=0;t=31, "hour";r=2;t=3630', 'Retry-After': '31' });

    const strikes = [await checked(), await checked()];
    expect(strikes.map((answer) => answer.decision.verdict)).toEqual(['rate_limited', 'banned']);
    expect(strikes[1]?.headers['Retry-After']).toBe('600');
    clock.advance(600_000);
    expect((await checked()).allowed).toBe(true);
  });

  it('decides every generated schedule exactly as the same limiter over MemoryQuotaStore: decisions and header fields, with several rules, subjects and bans', async () => {
    const clock = new ManualClock(0);
    let run = 0;
    const verdicts = { admitted: 0, rate_limited: 0, banned: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc
          .tuple(rulesArb, fc.option(banArb, { nil: undefined }))
          .chain(([rules, ban]) =>
            fc
              .tuple(scheduleArb(rules, { maxSteps: 25, maxBurst: 4 }), fc.array(fc.nat({ max: 1 }), { minLength: 100, maxLength: 100 }))
              .map(([times, subjects]) => ({ rules, ban, times, subjects })),
          ),
        async ({ rules, ban, times, subjects }) => {
          run++;
          const memory = new MemoryQuotaStore(clock);
          const redis = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: clock });
          const local = createRateLimiter(ban === undefined ? { rules, store: memory } : { rules, store: memory, ban });
          const remote = createRateLimiter(ban === undefined ? { rules, store: redis } : { rules, store: redis, ban });
          const expected: RateLimitCheck[] = [];
          const actual: Promise<RateLimitCheck>[] = [];
          times.forEach((at, i) => {
            clock.set(at);
            const subject = `${run}:${subjects[i % subjects.length]}`;
            expected.push(local.check(subject));
            // Sent in order on one connection, without waiting: one pipeline per schedule.
            actual.push(remote.check(subject));
          });
          expect(await Promise.all(actual)).toEqual(expected);
          for (const answer of expected) verdicts[answer.decision.verdict]++;
        },
      ),
      { numRuns: runs(200) },
    );
    expect(verdicts.rate_limited).toBeGreaterThan(500);
    expect(verdicts.banned).toBeGreaterThan(50);
  });

  it('two instances, each with its limiter on one Redis and its time, admit exactly the limit of 40 concurrent requests of one client', async () => {
    const prefix = shared.freshPrefix();
    const other = await createRedisClient({ url: shared.url });
    try {
      const rules = [{ name: 'minute', limit: 15, windowMs: 60_000 }];
      const instances = [shared.redis, other].map((redis) => createRateLimiter({ rules, store: new RedisQuotaStore(redis, { prefix }) }));
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => instances[i % 2]!.check('ip:203.0.113.9')));
      const admitted = answers.filter((answer) => answer.allowed);
      expect(admitted).toHaveLength(15);
      expect(new Set(admitted.map((answer) => answer.headers['X-RateLimit-Remaining']))).toEqual(
        new Set(Array.from({ length: 15 }, (_, i) => String(i))),
      );
      expect(answers.filter((answer) => !answer.allowed).every((answer) => Number(answer.headers['Retry-After']) >= 1)).toBe(true);
    } finally {
      other.disconnect();
    }
  });

  it('weighs requests, reads a key without spending it, and resets it on every instance sharing the Redis', async () => {
    const clock = new ManualClock(T0);
    const prefix = shared.freshPrefix();
    const [one, two] = [0, 1].map(() =>
      createRateLimiter({
        rules: RULES,
        store: new RedisQuotaStore(shared.redis, { prefix, time: clock }),
        ban: { strikes: 1, strikeWindowMs: 60_000, banMs: 600_000 },
      }),
    );
    expect((await one!.check('tenant', 2)).decision.remaining).toEqual([1, 3]);
    expect(await two!.get('tenant', 2)).toMatchObject({ allowed: false, decision: { verdict: 'rate_limited', remaining: [1, 3] } });
    expect((await two!.get('tenant')).allowed).toBe(true);
    expect((await two!.check('tenant', 2)).allowed).toBe(false);
    expect((await one!.check('tenant', 3)).decision.verdict).toBe('banned');
    await two!.reset('tenant');
    expect(await one!.get('tenant', 3)).toMatchObject({ allowed: true, decision: { remaining: [3, 5] } });
    expect(() => one!.check('tenant', 4)).toThrow('rate limiter: cost must be a whole number from 1 to 3 (the smallest limit), not 4');
  });

  it('refuses a rule at creation, before any command reaches Redis', () => {
    const store = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix() });
    let sent = 0;
    const counting = decidingStore((...args: Parameters<RedisQuotaStore['decide']>) => (sent++, store.decide(...args)));
    expect(() => createRateLimiter({ rules: [{ name: 'minute', limit: 0, windowMs: 60_000 }], store: counting })).toThrow(RangeError);
    expect(sent).toBe(0);
  });
});
