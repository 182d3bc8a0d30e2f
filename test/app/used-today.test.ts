import { describe, expect, it } from 'vitest';
import type { KeyStanding } from '../../src/adapters/key-view.js';
import { usedToday } from '../../src/app/keys/key-operations.js';
import { DAY_MS, type Plan } from '../../src/domain/quota/plan.js';

const standing = (plan: Plan, used: readonly number[]): KeyStanding => ({
  key: { id: 'key_0123456789abcdef', label: '', plan, role: 'customer', createdAt: 0 },
  rules: plan.rules.map((rule, i) => ({ name: rule.name, limit: rule.limit, used: used[i], remaining: rule.limit - used[i]!, resetAt: undefined })),
  bannedUntil: undefined,
  strikes: undefined,
});

describe('used today', () => {
  it('is what the plan’s day window counted, never a bucket that refills in a day', () => {
    const daily = { name: 'daily', limit: 10, windowMs: DAY_MS, kind: 'burst' } as const;
    const day = { name: 'day', limit: 100, windowMs: DAY_MS };
    expect(usedToday(standing({ name: 'both', rules: [daily, day] }, [3, 7]))).toBe(7);
    expect(usedToday(standing({ name: 'bucket', rules: [daily] }, [3]))).toBeUndefined();
  });
});
