import { describe, expect, expectTypeOf, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import type { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { DEFAULT_BAN_POLICY, MAX_BAN_STRIKES } from '../../src/domain/quota/ban-policy.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { BanPolicy, QuotaPolicy, QuotaRule } from '../../src/domain/quota/quota-rule.js';
import { type RateLimitCheck, type RateLimiter, createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { onTheWire, serverHeaders } from './rate-limiter-support.js';
import { decidingStore } from '../support/quota-store-doubles.js';

// Aligned on a second and on an hour, so every reset below is exact.
const T0 = 1_800_000_000_000;
const S0 = T0 / 1000;
const RULES: readonly QuotaRule[] = [
  { name: 'minute', limit: 3, windowMs: 60_000 },
  { name: 'hour', limit: 5, windowMs: 3_600_000 },
];

const memoryLimiter = (
  rules: readonly QuotaRule[] = RULES,
  ban?: BanPolicy,
): { clock: ManualClock; limiter: RateLimiter<MemoryQuotaStore> } => {
  const clock = new ManualClock(T0);
  const store = new MemoryQuotaStore(clock);
  return { clock, limiter: createRateLimiter(ban === undefined ? { rules, store } : { rules, store, ban }) };
};

/** The limiter's answer, which the server's headers for the same decision must match field for field. */
const checked = (limiter: RateLimiter<MemoryQuotaStore>, subject: string): RateLimitCheck => {
  const answer = limiter.check(subject);
  expect(answer).not.toBeInstanceOf(Promise);
  expect(onTheWire(answer.headers)).toEqual(serverHeaders(limiter.policy, answer.decision));
  return answer;
};

describe('createRateLimiter', () => {
  it('answers synchronously over the memory store, with the header fields the server writes for the same decision', () => {
    const { limiter } = memoryLimiter();
    const first = checked(limiter, 'ip:192.0.2.1');
    expect(first.allowed).toBe(true);
    expect(first.decision).toMatchObject({ verdict: 'admitted', decidedAt: T0, remaining: [2, 4] });
    expect(first.headers).toStrictEqual({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': String(S0 + 61),
      'RateLimit-Policy': '"minute";q=3;w=60, "hour";q=5;w=3600',
      RateLimit: '"minute";r=2;t=61, "hour";r=4;t=3660',
    });
  });

  it('limits by every rule at once: the X-RateLimit-* trio follows the binding rule, RateLimit describes each', () => {
    const { clock, limiter } = memoryLimiter();
    const subject = 'ip:192.0.2.2';
    checked(limiter, subject);
    checked(limiter, subject);
    expect(checked(limiter, subject).headers).toMatchObject({ 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': '0' });

    const minuteSpent = checked(limiter, subject);
    expect(minuteSpent.allowed).toBe(false);
    expect(minuteSpent.decision.verdict).toBe('rate_limited');
    expect(minuteSpent.headers).toStrictEqual({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(S0 + 61),
      'RateLimit-Policy': '"minute";q=3;w=60, "hour";q=5;w=3600',
      RateLimit: '"minute";r=0;t=61, "hour";r=2;t=3660',
      'Retry-After': '61',
    });

    clock.set(T0 + 61_000);
    // The minute rule counts nothing any more: the hour rule, with 1 left, binds.
    expect(checked(limiter, subject).headers).toMatchObject({
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '1',
      'X-RateLimit-Reset': String(S0 + 3660),
      RateLimit: '"minute";r=2;t=61, "hour";r=1;t=3599',
    });
    checked(limiter, subject);
    const hourSpent = checked(limiter, subject);
    expect(hourSpent.allowed).toBe(false);
    // The three requests of T0 leave the hour rule at T0 + 61 granules of a minute.
    expect(hourSpent.headers).toMatchObject({ 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '0', 'Retry-After': '3599' });

    clock.set(T0 + 3_660_000);
    expect(checked(limiter, subject).allowed).toBe(true);
  });

  it('counts a refusal nowhere: after any number of refusals, the next admission is the one it would have been without them', () => {
    const refusing = memoryLimiter();
    const quiet = memoryLimiter();
    for (let i = 0; i < 3; i++) {
      checked(refusing.limiter, 'a');
      checked(quiet.limiter, 'a');
    }
    refusing.clock.advance(1_500);
    const refusals = Array.from({ length: 50 }, () => checked(refusing.limiter, 'a'));
    expect(refusals.every((refusal) => !refusal.allowed)).toBe(true);
    expect(new Set(refusals.map((refusal) => refusal.headers.RateLimit))).toEqual(new Set(['"minute";r=0;t=60, "hour";r=2;t=3659']));

    refusing.clock.set(T0 + 61_000);
    quiet.clock.set(T0 + 61_000);
    const after = checked(refusing.limiter, 'a');
    const withoutRefusals = checked(quiet.limiter, 'a');
    expect(after.allowed).toBe(true);
    expect(after.decision).toEqual(withoutRefusals.decision);
    expect(after.headers).toStrictEqual(withoutRefusals.headers);
  });

  it('keeps subjects apart', () => {
    const { limiter } = memoryLimiter([{ name: 'minute', limit: 1, windowMs: 60_000 }]);
    expect(checked(limiter, 'a').allowed).toBe(true);
    expect(checked(limiter, 'a').allowed).toBe(false);
    expect(checked(limiter, 'b').allowed).toBe(true);
  });

  it("gives back an admitted check's cost, to its subject's own limits (an override's too), and nothing for a refused check", () => {
    const clock = new ManualClock(1_767_225_600_000);
    const limiter = createRateLimiter({
      rules: [{ name: 'minute', limit: 4, windowMs: 60_000 }],
      store: new MemoryQuotaStore(clock),
      overrides: [{ subjects: 'vip:*', limits: { minute: 8 } }],
    });
    const spent = limiter.check('a', 3);
    limiter.refund('a', spent, 3);
    expect(limiter.get('a').decision.remaining).toEqual([4]);
    limiter.check('a', 4);
    const refused = limiter.check('a', 1);
    expect(refused.allowed).toBe(false);
    limiter.refund('a', refused);
    expect(limiter.get('a').decision.remaining).toEqual([0]);
    const vip = limiter.check('vip:1', 6);
    expect(vip.decision.remaining).toEqual([2]);
    limiter.refund('vip:1', vip, 6);
    expect(limiter.get('vip:1').decision.remaining).toEqual([8]);
    expect(() => limiter.refund('a', spent, 5)).toThrow(RangeError);
  });

  it('bans a subject refused again and again before its Retry-After, and admits it once the ban is over', () => {
    const ban: BanPolicy = { strikes: 3, strikeWindowMs: 60_000, banMs: 600_000 };
    const { clock, limiter } = memoryLimiter([{ name: 'minute', limit: 2, windowMs: 60_000 }], ban);
    checked(limiter, 'a');
    checked(limiter, 'a');
    // The first refusal is no strike; the three sent before its Retry-After are.
    const verdicts = Array.from({ length: 4 }, () => checked(limiter, 'a').decision.verdict);
    expect(verdicts).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'banned']);

    clock.advance(100_000);
    const banned = checked(limiter, 'a');
    expect(banned.allowed).toBe(false);
    expect(banned.headers).toStrictEqual({
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(S0 + 600),
      'RateLimit-Policy': '"minute";q=2;w=60',
      RateLimit: '"minute";r=0;t=500',
      'Retry-After': '500',
    });
    clock.set(T0 + 600_000 - 1);
    expect(checked(limiter, 'a').decision.verdict).toBe('banned');
    clock.set(T0 + 600_000);
    expect(checked(limiter, 'a').allowed).toBe(true);
  });

  it('bans with DEFAULT_BAN_POLICY on the 20th strike for 15 minutes, and never bans without a ban policy', () => {
    const rules = [{ name: 'minute', limit: 1, windowMs: 60_000 }];
    const banning = memoryLimiter(rules, DEFAULT_BAN_POLICY);
    const verdicts = Array.from({ length: 22 }, () => checked(banning.limiter, 'a').decision.verdict);
    expect(verdicts.lastIndexOf('rate_limited')).toBe(20);
    expect(verdicts[21]).toBe('banned');
    expect(checked(banning.limiter, 'a').headers['Retry-After']).toBe('900');

    const lenient = memoryLimiter(rules);
    const answers = Array.from({ length: 200 }, () => checked(lenient.limiter, 'a'));
    expect(answers.filter((answer) => answer.decision.verdict === 'banned')).toEqual([]);
  });

  it('over a store that answers with promises, answers with a promise of the same check', async () => {
    const clock = new ManualClock(T0);
    const memory = new MemoryQuotaStore(clock);
    const remote: QuotaStore = decidingStore((subject, policy) => Promise.resolve(memory.decide(subject, policy)));
    const limiter = createRateLimiter({ rules: RULES, store: remote });
    const pending = limiter.check('a');
    expect(pending).toBeInstanceOf(Promise);
    const answer = await pending;
    expect(answer.allowed).toBe(true);
    expect(answer.headers['X-RateLimit-Remaining']).toBe('2');
    expect(onTheWire(answer.headers)).toEqual(serverHeaders(limiter.policy, answer.decision));
  });

  it("types check as the store answers: no promise over the memory store, a promise over Redis's", () => {
    expectTypeOf<RateLimiter<MemoryQuotaStore>['check']>().returns.toEqualTypeOf<RateLimitCheck>();
    expectTypeOf<RateLimiter<RedisQuotaStore>['check']>().returns.toEqualTypeOf<Promise<RateLimitCheck>>();
    expectTypeOf<RateLimiter['check']>().returns.toEqualTypeOf<RateLimitCheck | Promise<RateLimitCheck>>();
    // The headers go to res.set / reply.headers as they are.
    expectTypeOf<RateLimitCheck['headers']>().toMatchTypeOf<Readonly<Record<string, string>>>();
  });

  it('takes burst rules of any whole number of milliseconds: a bucket of 4 refilling in 1.5 s admits 4 at once, then one every 375 ms, w its refill time rounded up', () => {
    const { clock, limiter } = memoryLimiter([{ name: 'burst', limit: 4, windowMs: 1_500, kind: 'burst' }, RULES[1]!]);
    const answers = Array.from({ length: 5 }, () => checked(limiter, 'app:1'));
    expect(answers.map(({ allowed }) => allowed)).toEqual([true, true, true, true, false]);
    expect(answers[4]!.headers).toStrictEqual({
      'X-RateLimit-Limit': '4',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(S0 + 1),
      'RateLimit-Policy': '"burst";q=4;w=2, "hour";q=5;w=3600',
      RateLimit: '"burst";r=0;t=1, "hour";r=1;t=3660',
      'Retry-After': '1',
    });
    clock.advance(374);
    expect(checked(limiter, 'app:1').allowed).toBe(false);
    clock.advance(1);
    expect(checked(limiter, 'app:1').allowed).toBe(true);
    expect(limiter.policy.rules[0]).toEqual({ name: 'burst', limit: 4, windowMs: 1_500, kind: 'burst' });
  });

  it('keeps its own copy of the rules: changing the caller’s array later changes nothing', () => {
    const rules: QuotaRule[] = [{ name: 'minute', limit: 1, windowMs: 60_000 }];
    const { limiter } = memoryLimiter(rules);
    rules[0] = { name: 'minute', limit: 100, windowMs: 60_000 };
    checked(limiter, 'a');
    expect(checked(limiter, 'a').allowed).toBe(false);
    expect(Object.isFrozen(limiter.policy.rules)).toBe(true);
  });

  describe('refuses at creation, before any request reaches the store, a configuration no store can honour', () => {
    const minute = (change: Partial<QuotaRule>): QuotaRule => ({ name: 'minute', limit: 60, windowMs: 60_000, ...change });
    const cases: [string, readonly QuotaRule[], BanPolicy?][] = [
      ['no rule', []],
      ['a window not cut into 60 whole milliseconds', [minute({ windowMs: 1_001 })]],
      ['a window of 60 ms, not whole seconds for RateLimit-Policy', [minute({ windowMs: 60 })]],
      ['a window of 1 s, whose granules are not whole milliseconds', [minute({ windowMs: 1_000 })]],
      ['a limit of 0', [minute({ limit: 0 })]],
      ['a limit of 1.5', [minute({ limit: 1.5 })]],
      ['a limit beyond 32 bits', [minute({ limit: 2 ** 32 })]],
      ['a name with a quote', [minute({ name: 'per "minute"' })]],
      ['a name with a line break', [minute({ name: 'minute\r\nSet-Cookie: a=b' })]],
      ['an empty name', [minute({ name: '' })]],
      ['two rules of one name', [minute({}), minute({ windowMs: 3_600_000 })]],
      ['a ban of no strikes', [minute({})], { ...DEFAULT_BAN_POLICY, strikes: 0 }],
      ['a ban of more strikes than a store keeps', [minute({})], { ...DEFAULT_BAN_POLICY, strikes: MAX_BAN_STRIKES + 1 }],
      ['a ban of no time', [minute({})], { ...DEFAULT_BAN_POLICY, banMs: 0 }],
      ['a strike window of NaN', [minute({})], { ...DEFAULT_BAN_POLICY, strikeWindowMs: Number.NaN }],
      ['a burst rule refilling in no whole number of milliseconds', [minute({ kind: 'burst', windowMs: 1_000.5 })]],
      ['a burst rule whose level could pass 2^53', [minute({ kind: 'burst', limit: 0xffff_ffff, windowMs: 86_400_000 })]],
    ];
    it.each(cases)('%s', (_, rules, ban) => {
      let decisions = 0;
      const store: QuotaStore = decidingStore((): QuotaDecision => {
        decisions++;
        throw new Error('not to be reached');
      });
      expect(() => createRateLimiter(ban === undefined ? { rules, store } : { rules, store, ban })).toThrow(RangeError);
      expect(decisions).toBe(0);
    });

    it('names the window rule in the units the README uses, whatever window is refused', () => {
      const store = new MemoryQuotaStore(new ManualClock(T0));
      for (const windowMs of [1_001, 60, 1_000, 0, -3_000, 4_500]) {
        expect(() => createRateLimiter({ rules: [minute({ windowMs })], store })).toThrow(/windowMs must be a multiple of 3 s \(3000, 60000, 3600000\.\.\.\)/);
      }
    });

    it('says what to write instead of a window it refuses: the nearest multiples of 3 s, or a burst rule for any whole number of milliseconds', () => {
      const store = new MemoryQuotaStore(new ManualClock(T0));
      const refusal = (windowMs: number): string => {
        try {
          createRateLimiter({ rules: [minute({ windowMs })], store });
        } catch (error) {
          return (error as Error).message;
        }
        return 'accepted';
      };
      expect(refusal(10_000)).toContain('write 9000 or 12000');
      expect(refusal(1_000)).toContain('write 3000');
      expect(refusal(1_000)).toContain("{ kind: 'burst', windowMs: 1000 }");
      // Still taken as a burst rule: a bucket has no sub-windows.
      expect(() => createRateLimiter({ rules: [{ name: 'second', limit: 5, windowMs: 1_000, kind: 'burst' }], store })).not.toThrow();
    });

    it('and takes the rules it can: windows of whole seconds that are multiples of 3 s, names of printable ASCII', () => {
      const rules: QuotaRule[] = [
        { name: 'burst 3s', limit: 1, windowMs: 3_000 },
        { name: 'minute', limit: 60, windowMs: 60_000 },
        { name: 'day', limit: 0xffff_ffff, windowMs: 86_400_000 },
      ];
      const policy: QuotaPolicy = createRateLimiter({ rules, store: new MemoryQuotaStore(new ManualClock(T0)), ban: DEFAULT_BAN_POLICY }).policy;
      expect(policy).toEqual({ rules, ban: DEFAULT_BAN_POLICY });
    });
  });
});
