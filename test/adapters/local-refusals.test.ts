import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { LocalRefusals } from '../../src/adapters/wrappers/local-refusals.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { QuotaPolicy, RuleCosts } from '../../src/domain/quota/quota-rule.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import type { StrikeRecorder, StrikesReported } from '../../src/ports/strike-recorder.js';
import { ManualClock } from '../support/manual-clock.js';

const BAN = { strikes: 20, strikeWindowMs: 600_000, banMs: 900_000 };
const POLICY: QuotaPolicy = { rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }], ban: BAN };
const START = 1_800_000_000_000;
/** The store's clock runs this far ahead of the instance's. */
const SKEW = 5_000;
const LAG = 100;

const refusal = (verdict: 'rate_limited' | 'banned', decidedAt: number, retryAt: number, resetAt = [retryAt]): QuotaDecision => ({
  verdict,
  decidedAt,
  remaining: [0],
  resetAt,
  retryAt,
});

/** A store answering what the test queues, counting its calls; its clock is the instance's plus SKEW. */
class ScriptedStore implements QuotaStore, StrikeRecorder {
  readonly answers: QuotaDecision[] = [];
  decisions = 0;
  /** The cost of each decision asked, in order. */
  readonly costs: (number | RuleCosts)[] = [];
  readonly recorded: { subject: string; strikes: readonly number[] }[] = [];
  strikesAnswer: QuotaDecision | undefined | Error = undefined;

  constructor(private readonly clock: ManualClock) {}

  decide(_subject?: string, _policy?: QuotaPolicy, cost: number | RuleCosts = 1): Promise<QuotaDecision> {
    this.decisions++;
    this.costs.push(cost);
    const next = this.answers.shift() ?? { verdict: 'admitted', decidedAt: this.clock.now() + SKEW, remaining: [1], resetAt: [0], retryAt: this.clock.now() + SKEW };
    return Promise.resolve(next);
  }

  /** The strikes a refusal reports, as the Redis script returns them. */
  reportedStrikes: number[] = [];

  async decideReportingStrikes(subject: string, policy: QuotaPolicy, cost?: number | RuleCosts): Promise<StrikesReported> {
    const decision = await this.decide(subject, policy, cost);
    return { decision, strikes: decision.verdict === 'rate_limited' ? this.reportedStrikes : [] };
  }

  /** What a peek answers; the test sets it before peeking. */
  peekAnswer: QuotaDecision | undefined;
  readonly peeked: string[] = [];

  peek(): Promise<QuotaDecision> {
    if (this.peekAnswer === undefined) throw new Error('no peek scripted');
    this.peeked.push(`peek after ${this.recorded.length} flushes`);
    return Promise.resolve(this.peekAnswer);
  }

  reset(): Promise<void> {
    return Promise.resolve();
  }

  /** The refunds asked, in order; each answers when the test resolves it. */
  readonly refunds: { readonly subject: string; readonly units: RuleCosts; readonly answer: () => void }[] = [];

  refund(subject: string, _policy: QuotaPolicy, units: RuleCosts): Promise<void> {
    return new Promise((resolve) => this.refunds.push({ subject, units, answer: resolve }));
  }

  recordStrikes(subject: string, _policy: QuotaPolicy, strikes: readonly number[]): Promise<QuotaDecision | undefined> {
    this.recorded.push({ subject, strikes: [...strikes] });
    const answer = this.strikesAnswer;
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }
}

const setUp = (maxEntries = 100, recheckMs?: number) => {
  const clock = new ManualClock(START);
  const store = new ScriptedStore(clock);
  const scheduled: number[] = [];
  const flushErrors: unknown[] = [];
  const cache = new LocalRefusals(store, store, clock, {
    strikeLagMs: LAG,
    maxEntries,
    ...(recheckMs === undefined ? {} : { recheckMs }),
    schedule: (_flush, delayMs) => scheduled.push(delayMs),
    onFlushError: (error) => flushErrors.push(error),
  });
  return { clock, store, cache, scheduled, flushErrors };
};

describe('LocalRefusals', () => {
  it('answers a ban itself until its end, on the store clock, then asks the store', async () => {
    const { clock, store, cache } = setUp();
    const end = START + SKEW + 900_000;
    store.answers.push(refusal('banned', START + SKEW, end + 30_000, [end, end + 30_000]));
    const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }, { name: 'day', limit: 9, windowMs: 86_400_000 }], ban: BAN };
    await cache.decide('key:a', policy);
    clock.set(end - SKEW - 1);
    expect(await cache.decide('key:a', policy)).toEqual({ verdict: 'banned', decidedAt: end - 1, remaining: [0], resetAt: [end, end + 30_000], retryAt: end + 30_000 });
    expect(store.decisions).toBe(1);
    clock.set(end - SKEW);
    expect((await cache.decide('key:a', policy)).verdict).toBe('admitted');
    expect(store.decisions).toBe(2);
    expect(store.recorded).toEqual([]);
  });

  it('with recheckMs, answers a ban itself for that long only, then asks the store, which an operator may have reset', async () => {
    const { clock, store, cache } = setUp(100, 5_000);
    const end = START + SKEW + 900_000;
    const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }, { name: 'day', limit: 9, windowMs: 86_400_000 }], ban: BAN };
    store.answers.push(refusal('banned', START + SKEW, end + 30_000, [end, end + 30_000]));
    await cache.decide('key:a', policy);
    clock.advance(4_999);
    expect((await cache.decide('key:a', policy)).verdict).toBe('banned');
    expect(store.decisions).toBe(1);
    // The store, reset meanwhile, admits.
    clock.advance(1);
    expect((await cache.decide('key:a', policy)).verdict).toBe('admitted');
    expect(store.decisions).toBe(2);
  });

  it('asks the store during a ban whose end no rule pins (every window longer than the ban)', async () => {
    const { store, cache } = setUp();
    const policy: QuotaPolicy = { rules: [{ name: 'day', limit: 9, windowMs: 86_400_000 }], ban: BAN };
    store.answers.push(refusal('banned', START + SKEW, START + SKEW + 3_600_000), refusal('banned', START + SKEW, START + SKEW + 3_600_000));
    await cache.decide('key:a', policy);
    await cache.decide('key:a', policy);
    expect(store.decisions).toBe(2);
  });

  it('answers a 429 itself until the strike lag before its retryAt, handing the strikes of one lag over in one flush', async () => {
    const { clock, store, cache, scheduled } = setUp();
    const retryAt = START + SKEW + 10_000;
    store.answers.push(refusal('rate_limited', START + SKEW, retryAt));
    await cache.decide('key:a', POLICY);
    clock.advance(10);
    const local = await cache.decide('key:a', POLICY);
    expect(local).toEqual(refusal('rate_limited', START + SKEW + 10, retryAt));
    clock.advance(LAG - 11);
    await cache.decide('key:a', POLICY);
    expect(scheduled).toEqual([LAG / 2]);
    await cache.flush();
    expect(store.recorded).toEqual([{ subject: 'key:a', strikes: [START + SKEW + 10, retryAt, START + SKEW + LAG - 1, retryAt] }]);

    // Longer than the lag after the flush asked the store, the strike goes to it at once.
    clock.set(retryAt - SKEW - LAG - 1);
    expect(await cache.decide('key:a', POLICY)).toEqual(refusal('rate_limited', retryAt - LAG - 1, retryAt));
    expect(store.recorded[1]).toEqual({ subject: 'key:a', strikes: [retryAt - LAG - 1, retryAt] });
    expect(store.decisions).toBe(1);

    clock.set(retryAt - SKEW - LAG);
    await cache.decide('key:a', POLICY);
    expect(store.decisions).toBe(2);
  });

  it('answers a ban another instance stored within the strike lag: a strike that long after the store was last asked goes to it at once', async () => {
    const { clock, store, cache } = setUp();
    store.answers.push(refusal('rate_limited', START + SKEW, START + SKEW + 60_000));
    await cache.decide('key:a', POLICY);
    // Banned meanwhile through another instance; the store reports it to the strikes it is sent.
    const bannedUntil = START + SKEW + 900_000;
    store.strikesAnswer = refusal('banned', START + SKEW + LAG, bannedUntil);
    clock.advance(LAG - 1);
    expect((await cache.decide('key:a', POLICY)).verdict).toBe('rate_limited');
    expect(store.recorded).toEqual([]);
    clock.advance(1);
    const [first, second] = await Promise.all([cache.decide('key:a', POLICY), cache.decide('key:a', POLICY)]);
    expect(first).toEqual(refusal('banned', START + SKEW + LAG, bannedUntil));
    expect(second).toEqual(first);
    // Both strikes so far in one call; the second waited for its answer.
    expect(store.recorded).toEqual([{ subject: 'key:a', strikes: [START + SKEW + LAG - 1, START + SKEW + 60_000, START + SKEW + LAG, START + SKEW + 60_000] }]);
    expect(store.decisions).toBe(1);
    clock.advance(5_000);
    expect(await cache.decide('key:a', POLICY)).toEqual(refusal('banned', START + SKEW + LAG + 5_000, bannedUntil));
  });

  it('under steady refusals answers each itself: every flush that finds no ban counts as asking the store, so no strike waits for it', async () => {
    const { clock, store, cache, scheduled } = setUp();
    // More strikes than the test makes, so none completes a ban here.
    const policy: QuotaPolicy = { ...POLICY, ban: { ...BAN, strikes: 1_000 } };
    store.answers.push(refusal('rate_limited', START + SKEW, START + SKEW + 60_000));
    await cache.decide('key:a', policy);
    let flushDue: number | undefined;
    for (let i = 1; i <= 100; i++) {
      clock.set(START + 10 * i);
      if (flushDue !== undefined && flushDue <= clock.now()) {
        flushDue = undefined;
        await cache.flush();
      }
      const timers = scheduled.length;
      expect(cache.decide('key:a', policy), `a strike ${10 * i} ms after the refusal`).not.toBeInstanceOf(Promise);
      if (scheduled.length > timers) flushDue = clock.now() + scheduled.at(-1)!;
    }
    // One call per flush, each carrying the strikes of its half lag.
    expect(store.recorded.length).toBeGreaterThanOrEqual(15);
    expect(store.recorded.flatMap(({ strikes }) => strikes).length).toBeGreaterThan(2 * 90);
    expect(store.decisions).toBe(1);
  });

  it('hands pending strikes to the store before asking it again', async () => {
    const { clock, store, cache } = setUp();
    const retryAt = START + SKEW + 10_000;
    store.answers.push(refusal('rate_limited', START + SKEW, retryAt));
    await cache.decide('key:a', POLICY);
    await cache.decide('key:a', POLICY);
    clock.set(retryAt - SKEW);
    const order: string[] = [];
    const decide = store.decide.bind(store);
    store.decide = () => {
      order.push(`decide after ${store.recorded.length} flushes`);
      return decide();
    };
    await cache.decide('key:a', POLICY);
    expect(order).toEqual(['decide after 1 flushes']);
  });

  it("hands a subject's pending strikes to the store before it peeks, so the strikes the peek reports include those answered here", async () => {
    const { store, cache } = setUp();
    store.answers.push(refusal('rate_limited', START + SKEW, START + SKEW + 10_000));
    await cache.decide('key:a', POLICY);
    await cache.decide('key:a', POLICY);
    store.peekAnswer = { ...refusal('rate_limited', START + SKEW, START + SKEW + 10_000), strikes: 1 };
    expect(await cache.peek('key:a', POLICY)).toEqual(store.peekAnswer);
    expect(await cache.peek('key:a', POLICY)).toEqual(store.peekAnswer);
    expect(store.peeked, 'the second peek finds nothing pending').toEqual(['peek after 1 flushes', 'peek after 1 flushes']);
    expect(store.recorded).toEqual([{ subject: 'key:a', strikes: [START + SKEW, START + SKEW + 10_000] }]);
    expect(store.decisions).toBe(1);
  });

  it('takes the ban the flush reports in place of the refusal, without asking the store', async () => {
    const { clock, store, cache } = setUp();
    store.answers.push(refusal('rate_limited', START + SKEW, START + SKEW + 10_000));
    await cache.decide('key:a', POLICY);
    await cache.decide('key:a', POLICY);
    const bannedUntil = START + SKEW + 900_000;
    store.strikesAnswer = refusal('banned', START + SKEW, bannedUntil);
    await cache.flush();
    clock.advance(1);
    expect(await cache.decide('key:a', POLICY)).toEqual(refusal('banned', START + SKEW + 1, bannedUntil));
    expect(store.decisions).toBe(1);
    expect(store.recorded).toHaveLength(1);
  });

  it('counts no strike under a policy without a ban, and answers its 429 until retryAt', async () => {
    const { clock, store, cache, scheduled } = setUp();
    const policy: QuotaPolicy = { rules: POLICY.rules };
    const retryAt = START + SKEW + 10_000;
    store.answers.push(refusal('rate_limited', START + SKEW, retryAt));
    await cache.decide('addr:a', policy);
    clock.set(retryAt - SKEW - 1);
    expect((await cache.decide('addr:a', policy)).verdict).toBe('rate_limited');
    expect(store.decisions).toBe(1);
    expect(scheduled).toEqual([]);
  });

  it("answers a 429 again only to a request of the same costs under every rule (one number alike), asks the store for other costs, which another rule may admit, and passes them on", async () => {
    const { clock, store, cache } = setUp();
    const policy: QuotaPolicy = { rules: [{ name: 'all', limit: 9, windowMs: 60_000 }, { name: 'search', limit: 2, windowMs: 60_000 }] };
    const retryAt = START + SKEW + 10_000;
    store.answers.push({ ...refusal('rate_limited', START + SKEW, retryAt), remaining: [5, 0], resetAt: [retryAt, retryAt] });
    expect((await cache.decide('addr:a', policy, [1, 1])).verdict).toBe('rate_limited');
    clock.advance(1_000);
    expect((await cache.decide('addr:a', policy, [1, 1])).verdict).toBe('rate_limited');
    expect((await cache.decide('addr:a', policy, 1)).verdict).toBe('rate_limited');
    expect(store.decisions).toBe(1);
    // Not a search, or a cheaper one: the store decides (here it admits), and the refusal is forgotten.
    expect((await cache.decide('addr:a', policy, [1, 0])).verdict).toBe('admitted');
    store.answers.push({ ...refusal('rate_limited', START + SKEW, retryAt), remaining: [5, 0], resetAt: [retryAt, retryAt] });
    expect((await cache.decide('addr:a', policy, [2, 2])).verdict).toBe('rate_limited');
    expect((await cache.decide('addr:a', policy, [1, 1])).verdict).toBe('admitted');
    expect(store.costs).toEqual([[1, 1], [1, 0], [2, 2], [1, 1]]);
  });

  it('answers a ban to a request of any costs, and asks for a decision under a ban rule with the request\'s costs', async () => {
    const { store, cache } = setUp();
    store.answers.push(refusal('banned', START + SKEW, START + SKEW + 900_000));
    await cache.decide('key:a', POLICY, [2]);
    expect((await cache.decide('key:a', POLICY, [1])).verdict).toBe('banned');
    expect((await cache.decide('key:a', POLICY)).verdict).toBe('banned');
    expect(store.costs).toEqual([[2]]);
  });

  it('asks the store again for another policy object, or once the clock stepped back', async () => {
    const { clock, store, cache } = setUp();
    store.answers.push(refusal('banned', START + SKEW, START + SKEW + 900_000));
    await cache.decide('key:a', POLICY);
    await cache.decide('key:a', { ...POLICY });
    expect(store.decisions).toBe(2);
    store.answers.push(refusal('banned', START + SKEW, START + SKEW + 900_000));
    await cache.decide('key:b', POLICY);
    clock.advance(-1);
    await cache.decide('key:b', POLICY);
    expect(store.decisions).toBe(4);
  });

  it('forgets a refused subject when a refund of it is sent, and again once the store has it: a refund may give room back, which only the store knows', async () => {
    const { store, cache } = setUp();
    const policy: QuotaPolicy = { rules: POLICY.rules };
    const admitted = await cache.decide('key:a', policy);
    store.answers.push(refusal('rate_limited', START + SKEW, START + SKEW + 30_000), refusal('rate_limited', START + SKEW, START + SKEW + 30_000));
    await cache.decide('key:a', policy);
    await cache.decide('key:a', policy);
    expect(store.decisions).toBe(2);
    const refunded = cache.refund('key:a', policy, [1], admitted);
    expect(store.refunds.map(({ subject, units }) => ({ subject, units }))).toEqual([{ subject: 'key:a', units: [1] }]);
    // Sent: the next request asks the store, whose refusal, decided before the refund reached it, is remembered...
    await cache.decide('key:a', policy);
    await cache.decide('key:a', policy);
    expect(store.decisions).toBe(3);
    // ...until the store has the refund.
    store.refunds[0]!.answer();
    await refunded;
    expect((await cache.decide('key:a', policy)).verdict).toBe('admitted');
    expect(store.decisions).toBe(4);
  });

  it('keeps at most maxEntries subjects, forgetting the longest kept first', async () => {
    const { store, cache } = setUp(2);
    for (const subject of ['a', 'b', 'c']) {
      store.answers.push(refusal('banned', START + SKEW, START + SKEW + 900_000));
      await cache.decide(subject, POLICY);
    }
    expect(cache.size).toBe(2);
    await cache.decide('b', POLICY);
    await cache.decide('c', POLICY);
    expect(store.decisions).toBe(3);
    await cache.decide('a', POLICY);
    expect(store.decisions).toBe(4);
  });

  it('loses the strikes of a flush the outage failed, and reports any other failure', async () => {
    const { store, cache, flushErrors } = setUp();
    store.answers.push(refusal('rate_limited', START + SKEW, START + SKEW + 10_000));
    await cache.decide('key:a', POLICY);
    await cache.decide('key:a', POLICY);
    store.strikesAnswer = new StoreUnavailableError('Redis');
    await cache.flush();
    expect(flushErrors).toEqual([]);
    await cache.decide('key:a', POLICY);
    const bug = new Error('script error');
    store.strikesAnswer = bug;
    await cache.flush();
    expect(flushErrors).toEqual([bug]);
  });

  it("serves an embedder's rate limiter: a ban's fields answered with no store call", async () => {
    const { clock, store, cache } = setUp();
    const limiter = createRateLimiter({ rules: POLICY.rules, ban: BAN, store: cache });
    const end = START + SKEW + 900_000;
    store.answers.push(refusal('banned', START + SKEW, end));
    await limiter.check('ip:1');
    clock.advance(300_000);
    const check = await limiter.check('ip:1');
    expect(check.allowed).toBe(false);
    expect(check.headers['Retry-After']).toBe('600');
    expect(store.decisions).toBe(1);
  });

  it('refuses options that cannot work', () => {
    const clock = new ManualClock(START);
    const store = new ScriptedStore(clock);
    const options = { strikeLagMs: 0, maxEntries: 1, schedule: () => undefined, onFlushError: () => undefined };
    expect(() => new LocalRefusals(store, store, clock, options)).toThrow(/strikeLagMs must be a positive integer/);
    expect(() => new LocalRefusals(store, store, clock, { ...options, strikeLagMs: 1, recheckMs: 0 })).toThrow(/recheckMs must be a positive integer/);
  });
});
