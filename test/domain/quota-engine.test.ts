import { describe, expect, it } from 'vitest';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { bindingRuleIndex } from '../../src/domain/quota/binding-rule.js';
import { STANDARD_PLANS, enterprisePlan } from '../../src/domain/quota/plan.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import { createQuotaState, decideQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy, QuotaRule } from '../../src/domain/quota/quota-rule.js';

const START = 1_767_225_600_000;
const free: QuotaPolicy = { rules: STANDARD_PLANS.free.rules, ban: DEFAULT_BAN_POLICY };

describe('quota engine', () => {
  it('a Free key: 60 requests a minute, then 429s; 20 strikes within 10 minutes ban it for 15 minutes', () => {
    const state = createQuotaState(free);
    for (let i = 0; i < 60; i++) expect(decideQuota(state, free, START + i * 500).verdict).toBe('admitted');
    const refused = decideQuota(state, free, START + 30_000);
    expect(refused).toEqual({
      verdict: 'rate_limited',
      decidedAt: START + 30_000,
      remaining: [0, 940],
      resetAt: [START + 61_000, START + 61 * 1_440_000],
      retryAt: START + 61_000,
    });
    for (let strike = 1; strike < 20; strike++) {
      expect(decideQuota(state, free, START + 30_000 + strike).verdict).toBe('rate_limited');
    }
    const bannedAt = START + 30_020;
    expect(decideQuota(state, free, bannedAt)).toEqual({
      verdict: 'banned',
      decidedAt: bannedAt,
      remaining: [0, 0],
      resetAt: [bannedAt + 900_000, bannedAt + 900_000],
      retryAt: bannedAt + 900_000,
    });
    expect(decideQuota(state, free, bannedAt + 899_999).verdict).toBe('banned');
    expect(decideQuota(state, free, bannedAt + 900_000)).toMatchObject({ verdict: 'admitted', remaining: [59, 939] });
  });

  it('a key banned with its day quota spent is told to come back when the day rule admits again, not when the ban ends', () => {
    const small: QuotaPolicy = { rules: enterprisePlan(5, 8).rules, ban: DEFAULT_BAN_POLICY };
    const state = createQuotaState(small);
    for (let i = 0; i < 5; i++) expect(decideQuota(state, small, START).verdict).toBe('admitted');
    for (let i = 0; i < 3; i++) expect(decideQuota(state, small, START + 61_000).verdict).toBe('admitted');
    // All 8 sit in the day granule (24 min) of START, which leaves the window 61 granules later.
    const dayRetry = START + 61 * 1_440_000;
    expect(decideQuota(state, small, START + 61_000)).toMatchObject({ verdict: 'rate_limited', retryAt: dayRetry });
    for (let strike = 1; strike < 20; strike++) {
      expect(decideQuota(state, small, START + 61_000 + strike).verdict).toBe('rate_limited');
    }
    const bannedAt = START + 61_020;
    const banned = { verdict: 'banned', remaining: [0, 0], resetAt: [bannedAt + 900_000, dayRetry], retryAt: dayRetry };
    expect(decideQuota(state, small, bannedAt)).toEqual({ ...banned, decidedAt: bannedAt });
    expect(decideQuota(state, small, bannedAt + 899_999)).toEqual({ ...banned, decidedAt: bannedAt + 899_999 });
    // Back at the ban's end, the day rule still refuses (and, before the Retry-After told, strikes).
    expect(decideQuota(state, small, bannedAt + 900_000)).toMatchObject({ verdict: 'rate_limited', retryAt: dayRetry });
    expect(decideQuota(state, small, dayRetry)).toMatchObject({ verdict: 'admitted', remaining: [4, 7] });
  });

  it('keeps memory small: both rules in one typed array, no strike ring until a strike', () => {
    const state = createQuotaState(free);
    expect(state.cells.byteLength).toBeLessThanOrEqual(512);
    for (let i = 0; i < 61; i++) decideQuota(state, free, START);
    expect(state.strikes).toBeNull();
    decideQuota(state, free, START);
    expect(state.strikes?.times.length).toBe(20);
  });

  it('a clock that steps back counts in the newest bucket, so nothing old is rewritten', () => {
    const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }] };
    const state = createQuotaState(policy);
    expect(decideQuota(state, policy, 100_000).verdict).toBe('admitted');
    expect(decideQuota(state, policy, 50_000)).toMatchObject({ verdict: 'admitted', resetAt: [161_000] });
    expect(decideQuota(state, policy, 111_000)).toMatchObject({ verdict: 'rate_limited', retryAt: 161_000 });
    expect(decideQuota(state, policy, 161_000).verdict).toBe('admitted');
  });
});

describe('binding rule', () => {
  const rules: QuotaRule[] = [
    { name: 'minute', limit: 60, windowMs: 60_000 },
    { name: 'day', limit: 1000, windowMs: 86_400_000 },
  ];
  const withRemaining = (remaining: number[]): QuotaDecision => ({
    verdict: 'admitted',
    decidedAt: 0,
    remaining,
    resetAt: remaining.map(() => 0),
    retryAt: 0,
  });

  it('is the rule with the fewest remaining', () => {
    expect(bindingRuleIndex(withRemaining([59, 999]), rules)).toBe(0);
    expect(bindingRuleIndex(withRemaining([59, 3]), rules)).toBe(1);
  });

  it('on a tie, is the shorter window, wherever it is listed', () => {
    expect(bindingRuleIndex(withRemaining([0, 0]), rules)).toBe(0);
    expect(bindingRuleIndex(withRemaining([0, 0]), [rules[1]!, rules[0]!])).toBe(1);
  });

  it('is -1 without rules', () => {
    expect(bindingRuleIndex(withRemaining([]), [])).toBe(-1);
  });
});
