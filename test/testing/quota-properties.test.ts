import { describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import type { Clock } from '../../src/ports/clock.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { LimitExceeded, limiterAgreesWithModel, limiterKeepsToLimits, ModelDisagreement, quotaStoreAgreesWithModel, type LimiterFunction } from '../../src/testing.js';
import { runs } from '../support/property-runs.js';

/** A store that admits one more than every limit: what the property must catch. */
const onePastTheLimit = (clock: Clock): QuotaStore => {
  const inner = new MemoryQuotaStore(clock);
  const widened = (policy: QuotaPolicy): QuotaPolicy => ({ ...policy, rules: policy.rules.map((rule) => ({ ...rule, limit: rule.limit + 1 })) });
  return {
    decide: (subject, policy, cost) => inner.decide(subject, widened(policy), cost),
    peek: (subject, policy, cost) => inner.peek(subject, widened(policy), cost),
    reset: (subject) => inner.reset(subject),
    refund: (subject, policy, units, admitted) => inner.refund(subject, widened(policy), units, admitted),
  };
};

/** This service's limiter as a limiter function: a memory store on the time each request names. */
const memoryLimiter = (policy: QuotaPolicy): LimiterFunction => {
  let now = 0;
  const clocked = new MemoryQuotaStore({ now: () => now });
  return (subject, cost, at) => {
    now = at;
    return clocked.decide(subject, policy, cost).verdict === 'admitted';
  };
};

describe('the kit’s properties against the reference model', () => {
  it('the memory store agrees with the model on every schedule: windows, bursts, shadow rules, costs, bans, plan changes', async () => {
    await quotaStoreAgreesWithModel(async (clock) => ({ store: new MemoryQuotaStore(clock), cleanup: async () => {} }), { numRuns: runs(200) });
  });

  it('a store that admits one past the limit fails, printing the shrunk schedule request by request', async () => {
    const failure = quotaStoreAgreesWithModel(async (clock) => ({ store: onePastTheLimit(clock), cleanup: async () => {} }), { numRuns: 200, kinds: 'windows', costs: 'one', bans: false, seed: 40 });
    const error = await failure.then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/^the limiter admitted a request the model refuses \(over-admission\):\ntime t in ms from \d+\n {2}plan 0: a: \d+ per \d+ ms/);
    expect(message).toMatch(/ {2}t=\d+ request cost=1 → admitted \(model: refused\)\n\(fast-check seed -?\d+, path "[\d:]*", shrunk \d+ times\)$/);
    // Every request before the last was answered as the model answers it: the trace stops at the first disagreement.
    const steps = message.split('\n').filter((line) => line.startsWith('  t='));
    expect(steps.slice(0, -1).filter((line) => line.includes('(model:'))).toEqual([]);
    expect(steps.at(-1)).toMatch(/→ admitted \(model: refused\)$/);
    // The same trace as data, for a harness of its own.
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(ModelDisagreement);
    const lines = (cause as ModelDisagreement).lines;
    expect(lines).toHaveLength(steps.length);
    expect(lines.at(-1)).toMatchObject({ admitted: true, model: false });
  });

  it('a limiter function is held to the model too: a correct one passes, a fixed-window counter fails at a window boundary', async () => {
    const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 3, windowMs: 60_000 }] };
    await limiterAgreesWithModel(policy, () => memoryLimiter(policy), { numRuns: runs(100) });
    const fixedWindow = (): LimiterFunction => {
      const counts = new Map<string, number>();
      return (subject: string, cost: number, at: number): boolean => {
        const key = `${subject}:${Math.floor(at / 60_000)}`;
        const count = counts.get(key) ?? 0;
        if (count + cost > 3) return false;
        counts.set(key, count + cost);
        return true;
      };
    };
    await expect(limiterAgreesWithModel(policy, fixedWindow, { numRuns: 500, seed: 40 })).rejects.toThrow(/→ admitted \(model: refused\)/);
  });

  it('a limiter keeps to its limits when no span shorter than a window holds more than the limit: this service\'s passes, an exact rolling log passes, a fixed window fails over the limit itself', async () => {
    const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 3, windowMs: 60_000 }] };
    await limiterKeepsToLimits(policy, () => memoryLimiter(policy), { numRuns: runs(200), costs: 'varied' });
    // An exact rolling log admits some requests the model refuses, yet never goes over the limit.
    const rollingLog = (): LimiterFunction => {
      const admitted: { at: number; cost: number }[] = [];
      return (_subject, cost, at) => {
        const held = admitted.filter((entry) => at - entry.at < 60_000).reduce((sum, entry) => sum + entry.cost, 0);
        if (held + cost > 3) return false;
        admitted.push({ at, cost });
        return true;
      };
    };
    await limiterKeepsToLimits(policy, rollingLog, { numRuns: runs(200), costs: 'varied' });
    await expect(limiterAgreesWithModel(policy, rollingLog, { numRuns: 500, seed: 40 })).rejects.toThrow(/→ admitted \(model: refused\)/);
    const fixedWindow = (): LimiterFunction => {
      const counts = new Map<number, number>();
      return (_subject, cost, at) => {
        const count = counts.get(Math.floor(at / 60_000)) ?? 0;
        if (count + cost > 3) return false;
        counts.set(Math.floor(at / 60_000), count + cost);
        return true;
      };
    };
    const error = await limiterKeepsToLimits(policy, fixedWindow, { numRuns: 500, seed: 40 }).then(() => undefined, (caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^the limiter admitted [4-6] within 60000 ms, over the limit of 3 of rule minute:\ntime t in ms from \d+\n/);
    const cause = (error as Error).cause as LimitExceeded;
    expect(cause).toBeInstanceOf(LimitExceeded);
    // The trace ends at the admission that went over, and its admissions within the window add up to what it says was held.
    const last = cause.lines.at(-1)!;
    expect(last.admitted).toBe(true);
    const held = cause.lines.filter((line) => line.admitted && last.request.at - line.request.at < 60_000).length;
    expect(held).toBe(cause.held);
    expect(held).toBeGreaterThan(3);
  });
});

describe('a time limit', () => {
  it('stops starting cases once it has passed, and says how many ran', async () => {
    const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 3, windowMs: 60_000 }] };
    const slow = (): LimiterFunction => {
      let now = 0;
      const store = new MemoryQuotaStore({ now: () => now });
      return async (subject, cost, at) => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        now = at;
        return store.decide(subject, policy, cost).verdict === 'admitted';
      };
    };
    // 10,000 cases of at least one 2 ms step each take 20 s: a second always cuts them, after a few at least, even on a loaded machine.
    const report = await limiterAgreesWithModel(policy, slow, { numRuns: 10_000, timeLimitMs: 1_000, seed: 40 });
    expect(report.interrupted).toBe(true);
    expect(report.runs).toBeGreaterThan(0);
    expect(report.runs).toBeLessThan(10_000);
  });

  it('passing before any case finished is an error saying so, not a counterexample', async () => {
    const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 3, windowMs: 60_000 }] };
    const stuck = (): LimiterFunction => async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return true;
    };
    await expect(limiterAgreesWithModel(policy, stuck, { numRuns: 5, timeLimitMs: 20, seed: 40 })).rejects.toThrow(
      'the time limit (20 ms) passed before any case finished: nothing was checked; give the property more time (timeLimitMs)',
    );
  });
});

describe('several instances', () => {
  it('instances sharing one memory store agree with the model; instances each with counters of their own do not', async () => {
    const sharedPerCase = new Map<Clock, MemoryQuotaStore>();
    await quotaStoreAgreesWithModel(
      async (clock) => {
        const store = sharedPerCase.get(clock) ?? new MemoryQuotaStore(clock);
        sharedPerCase.set(clock, store);
        return { store, cleanup: async () => {} };
      },
      { instances: 3, numRuns: runs(100) },
    );
    const apart = quotaStoreAgreesWithModel(async (clock) => ({ store: new MemoryQuotaStore(clock), cleanup: async () => {} }), {
      instances: 2,
      numRuns: 300,
      bans: false,
      // Fixed, so the failure this test needs is the same on every run.
      seed: 40,
    });
    await expect(apart).rejects.toThrow(/ instance \d request cost=.* → admitted \(model: refused\)/);
  });
});
