import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeRateLimitHeaders } from '../../src/adapters/http/wire/rate-limit-headers.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import type { QuotaPolicy, RuleCosts } from '../../src/domain/quota/quota-rule.js';
import { rateLimitFields } from '../../src/domain/quota/rate-limit-fields.js';
import { runs } from '../support/property-runs.js';

const ban = { strikes: 2, strikeWindowMs: 60_000, banMs: 5_000 };
// Alike but for the rules' names: a ban's answer (its arrays) is kept across such a plan change.
const named: QuotaPolicy = { rules: [{ name: 'minute', limit: 3, windowMs: 60_000 }, { name: 'day', limit: 5, windowMs: 86_400_000 }], ban };
const renamed: QuotaPolicy = { rules: [{ name: 'short', limit: 3, windowMs: 60_000 }, { name: 'long', limit: 5, windowMs: 86_400_000 }], ban };
// Every rule at 1, or the first alone (one RuleCosts object, as an admission keeps one per plan and operation).
const firstRuleOnly: RuleCosts = Object.freeze([1, 0]);

/** The header list `writeRateLimitHeaders` writes, as a record of names to values. */
const written = (policy: QuotaPolicy, decision: Parameters<typeof writeRateLimitHeaders>[2], costs: number | RuleCosts): Record<string, string> => {
  const list: (string | number)[] = [];
  writeRateLimitHeaders(list, policy, decision, costs);
  const record: Record<string, string> = {};
  for (let i = 0; i < list.length; i += 2) record[String(list[i])] = String(list[i + 1]);
  return record;
};

describe('writeRateLimitHeaders', () => {
  it('writes for every answer the fields of its own decision, whatever was written before: a ban decided again in the same millisecond, later, under renamed rules or other costs', () => {
    const step = fc.record({
      subject: fc.constantFrom('a', 'b'),
      policy: fc.constantFrom(named, renamed),
      costs: fc.constantFrom<number | RuleCosts>(1, firstRuleOnly),
      // Mostly the same millisecond: the flood a ban is answered in.
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_500 })),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        let now = 1_900_000_000_000;
        const store = new MemoryQuotaStore({ now: () => now });
        for (const { subject, policy, costs, advanceMs } of steps) {
          now += advanceMs;
          const decision = store.decide(subject, policy, costs);
          const fields = rateLimitFields(policy, decision, costs);
          const expected: Record<string, string> = {
            'x-ratelimit-limit': String(fields.limit),
            'x-ratelimit-remaining': String(fields.remaining),
            'x-ratelimit-reset': String(fields.reset),
            'ratelimit-policy': fields.policy,
            ratelimit: fields.rateLimit,
          };
          if (fields.retryAfter !== undefined) expected['retry-after'] = String(fields.retryAfter);
          expect(written(policy, decision, costs)).toEqual(expected);
        }
      }),
      { numRuns: runs(2_000) },
    );
  });

  it("writes a ban's Retry-After from the decision in hand, even when one of the same arrays and millisecond ends elsewhere", () => {
    const remaining = [0, 0];
    const resetAt = [1_900_000_060_000, 1_900_000_060_000];
    const decidedAt = 1_900_000_000_000;
    const at = (retryAt: number) => written(named, { verdict: 'banned', decidedAt, remaining, resetAt, retryAt }, 1)['retry-after'];
    expect(at(decidedAt + 60_000)).toBe('60');
    expect(at(decidedAt + 90_000)).toBe('90');
  });
});
