import { describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import { describeQuotaStoreContract } from '../contracts/quota-store-contract.js';
import { ManualClock } from '../support/manual-clock.js';

describeQuotaStoreContract('memory', async (clock) => ({
  store: new MemoryQuotaStore(clock),
  cleanup: async () => {},
}));

const free: QuotaPolicy = { rules: STANDARD_PLANS.free.rules, ban: DEFAULT_BAN_POLICY };
const DAY = 86_400_000;

describe('MemoryQuotaStore', () => {
  it('decides synchronously', () => {
    const store = new MemoryQuotaStore(new ManualClock(0));
    expect(store.decide('k', free)).toMatchObject({ verdict: 'admitted', remaining: [59, 999] });
  });

  it('forgets subjects idle past their longest window, so memory stays bounded with many keys', () => {
    const clock = new ManualClock(1_767_225_600_000);
    const store = new MemoryQuotaStore(clock, { sweepIntervalMs: 0, sweepEvery: 4, sweepBatch: 8 });
    for (let i = 0; i < 10_000; i++) store.decide(`old-${i}`, free);
    expect(store.size).toBe(10_000);
    clock.advance(DAY + DAY / 60);
    for (let i = 0; i < 10_000; i++) store.decide('active', free);
    expect(store.size).toBe(1);
  });

  it('keeps a subject while its state still matters: counted requests, a running Retry-After, strikes, a ban', () => {
    const start = 1_767_225_600_000;
    const clock = new ManualClock(start);
    const store = new MemoryQuotaStore(clock, { sweepIntervalMs: 0, sweepEvery: 1, sweepBatch: 100 });
    const fast = (ban: QuotaPolicy['ban'] & object): QuotaPolicy => ({
      rules: [{ name: 'fast', limit: 1, windowMs: 60 }],
      ban,
    });
    const striking = fast({ strikes: 5, strikeWindowMs: 10_000, banMs: 1_000 });
    const banning = fast({ strikes: 1, strikeWindowMs: 1_000, banMs: 2 * DAY });
    store.decide('counted', free);
    for (let i = 0; i < 2; i++) store.decide('refused', striking);
    for (let i = 0; i < 3; i++) store.decide('struck', striking);
    for (let i = 0; i < 3; i++) store.decide('banned', banning);
    expect(store.decide('banned', banning).verdict).toBe('banned');
    const sizeAt = (at: number): number => {
      clock.set(at);
      for (let i = 0; i < 3; i++) store.decide('active', free);
      return store.size;
    };
    // Retry-After 1 s, the strike counts 10 s, the day rule 61 granules, the ban 2 days.
    expect(sizeAt(start + 999)).toBe(5);
    expect(sizeAt(start + 1_000)).toBe(4);
    expect(sizeAt(start + 9_999)).toBe(4);
    expect(sizeAt(start + 10_000)).toBe(3);
    expect(sizeAt(start + 61 * (DAY / 60) - 1)).toBe(3);
    expect(sizeAt(start + 61 * (DAY / 60))).toBe(2);
    expect(sizeAt(start + 2 * DAY - 1)).toBe(2);
    expect(sizeAt(start + 2 * DAY)).toBe(1);
  });

  it('starts a subject over when its policy changes windows, and keeps it when only limits change', () => {
    const store = new MemoryQuotaStore(new ManualClock(0));
    const one: QuotaPolicy = { rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }] };
    const two: QuotaPolicy = { rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }] };
    const hour: QuotaPolicy = { rules: [{ name: 'hour', limit: 1, windowMs: 3_600_000 }] };
    expect(store.decide('k', one).verdict).toBe('admitted');
    expect(store.decide('k', one).verdict).toBe('rate_limited');
    expect(store.decide('k', two).verdict).toBe('admitted');
    expect(store.decide('k', two).verdict).toBe('rate_limited');
    expect(store.decide('k', hour).verdict).toBe('admitted');
  });

  it('refuses rules no counter can hold', () => {
    const store = new MemoryQuotaStore(new ManualClock(0));
    expect(() => store.decide('k', { rules: [{ name: 'odd', limit: 1, windowMs: 1_001 }] })).toThrow(RangeError);
    expect(() => store.decide('k', { rules: [{ name: 'none', limit: 0, windowMs: 60_000 }] })).toThrow(RangeError);
  });
});
