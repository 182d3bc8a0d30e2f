import { describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { assertDecidablePolicy } from '../../src/domain/quota/decidable-policy.js';
import { createQuotaState, decideQuota, isQuotaStateIdle } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy, QuotaRule } from '../../src/domain/quota/quota-rule.js';
import { ManualClock } from '../support/manual-clock.js';

const START = 1_767_225_600_000;
const burst = (limit: number, windowMs: number, more: Partial<QuotaRule> = {}): QuotaRule => ({ name: 'burst', limit, windowMs, kind: 'burst', ...more });

describe('burst rules in the quota engine', () => {
  it('a bucket of 5 refilling in 1 s admits 5 at once, then one every 200 ms, telling exactly when', () => {
    const policy: QuotaPolicy = { rules: [burst(5, 1_000)] };
    const state = createQuotaState(policy);
    const first = decideQuota(state, policy, START);
    // Empty again 200 ms on: the one unit counted has drained.
    expect(first).toEqual({ verdict: 'admitted', decidedAt: START, remaining: [4], resetAt: [START + 200], retryAt: START });
    for (let i = 0; i < 3; i++) decideQuota(state, policy, START);
    expect(decideQuota(state, policy, START)).toEqual({ verdict: 'admitted', decidedAt: START, remaining: [0], resetAt: [START + 200], retryAt: START });
    expect(decideQuota(state, policy, START + 199)).toEqual({
      verdict: 'rate_limited',
      decidedAt: START + 199,
      remaining: [0],
      resetAt: [START + 200],
      retryAt: START + 200,
    });
    expect(decideQuota(state, policy, START + 200)).toMatchObject({ verdict: 'admitted', remaining: [0], resetAt: [START + 400] });
    // Idle for a second: full again, and five at once.
    expect(decideQuota(state, policy, START + 1_400)).toMatchObject({ verdict: 'admitted', remaining: [4] });
  });

  it('refills a unit every windowMs / limit ms even when that is no whole number: 3 in 1 s, one every 333.3 ms', () => {
    const policy: QuotaPolicy = { rules: [burst(3, 1_000)] };
    const state = createQuotaState(policy);
    for (let i = 0; i < 3; i++) decideQuota(state, policy, START);
    expect(decideQuota(state, policy, START + 333)).toMatchObject({ verdict: 'rate_limited', retryAt: START + 334 });
    expect(decideQuota(state, policy, START + 334)).toMatchObject({ verdict: 'admitted', remaining: [0], resetAt: [START + 667] });
    expect(decideQuota(state, policy, START + 666)).toMatchObject({ verdict: 'rate_limited', retryAt: START + 667 });
    // A request of 2 waits until only one unit of three is out: 1 s after the bucket was emptied at START.
    expect(decideQuota(state, policy, START + 667, 2)).toMatchObject({ verdict: 'rate_limited', retryAt: START + 1_000 });
  });

  it('a shadow bucket counts what it has no room for, its level stopping at 2^53 - 1 so every number stays exact', () => {
    const policy: QuotaPolicy = { rules: [{ name: 'all', limit: 10, windowMs: 60_000 }, burst(1, 2 ** 52, { mode: 'shadow' })] };
    const state = createQuotaState(policy);
    expect(decideQuota(state, policy, 0)).toEqual({ verdict: 'admitted', decidedAt: 0, remaining: [9, 0], resetAt: [61_000, 2 ** 52], retryAt: 0 });
    expect(decideQuota(state, policy, 0)).toEqual({
      verdict: 'admitted',
      decidedAt: 0,
      remaining: [8, 0],
      resetAt: [61_000, Number.MAX_SAFE_INTEGER],
      retryAt: 0,
      shadowed: [1],
    });
    expect(decideQuota(state, policy, 0)).toMatchObject({ resetAt: [61_000, Number.MAX_SAFE_INTEGER], shadowed: [1] });
  });

  it('refuses a burst rule whose windowMs is no positive integer, whose level could pass 2^53, or a rule of an unknown kind', () => {
    expect(() => assertDecidablePolicy({ rules: [burst(1, 7)] })).not.toThrow();
    expect(() => assertDecidablePolicy({ rules: [burst(1, 0)] })).toThrow(/windowMs must be a positive integer/);
    expect(() => assertDecidablePolicy({ rules: [burst(1, 1.5)] })).toThrow(/windowMs must be a positive integer/);
    expect(() => assertDecidablePolicy({ rules: [burst(0xffff_ffff, 366 * 86_400_000)] })).toThrow(/limit times its windowMs must be at most 9007199254740991/);
    expect(() => assertDecidablePolicy({ rules: [burst(2, 2 ** 52)] })).toThrow(RangeError);
    expect(() => assertDecidablePolicy({ rules: [{ name: 'x', limit: 1, windowMs: 60_000, kind: 'token' as 'burst' }] })).toThrow(/kind must be one of window, burst/);
  });

  it('allocates burst levels only for a policy with a burst rule', () => {
    expect(createQuotaState({ rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }] }).levels).toBeNull();
    expect(createQuotaState({ rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }, burst(2, 10)] }).levels).toEqual(new Float64Array(2));
  });

  it('a subject is idle once its bucket has drained, not before', () => {
    const policy: QuotaPolicy = { rules: [burst(4, 1_000)] };
    const state = createQuotaState(policy);
    decideQuota(state, policy, START);
    decideQuota(state, policy, START);
    expect(isQuotaStateIdle(state, START + 499)).toBe(false);
    expect(isQuotaStateIdle(state, START + 500)).toBe(true);
  });

  it('a plan change keeps the units a bucket holds and refills at the new rate; a change of kind starts the subject over', () => {
    const clock = new ManualClock(START);
    const store = new MemoryQuotaStore(clock);
    const small: QuotaPolicy = { rules: [burst(2, 1_000)] };
    const large: QuotaPolicy = { rules: [burst(4, 1_000)] };
    store.decide('k', small);
    expect(store.decide('k', small)).toMatchObject({ remaining: [0] });
    // Two units held of four; the four drain at 4 per ms (one unit every 250 ms).
    expect(store.decide('k', large)).toMatchObject({ verdict: 'admitted', remaining: [1], resetAt: [START + 250] });
    expect(store.decide('k', small)).toMatchObject({ verdict: 'rate_limited', retryAt: START + 1_000 });
    const window: QuotaPolicy = { rules: [{ name: 'burst', limit: 2, windowMs: 1_020 }] };
    expect(store.decide('k', window)).toMatchObject({ verdict: 'admitted', remaining: [1] });
  });
});
