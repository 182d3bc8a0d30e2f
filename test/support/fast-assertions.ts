import { expect } from 'vitest';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';

const sameNumbers = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((value, i) => value === b[i]);

/** toEqual, without its cost on the passing path: property tests compare millions of decisions. */
export const expectSameDecision = (actual: QuotaDecision, expected: QuotaDecision): void => {
  const same =
    actual.verdict === expected.verdict &&
    actual.decidedAt === expected.decidedAt &&
    actual.retryAt === expected.retryAt &&
    actual.strikes === expected.strikes &&
    actual.countedAt === expected.countedAt &&
    sameNumbers(actual.remaining, expected.remaining) &&
    sameNumbers(actual.resetAt, expected.resetAt) &&
    (actual.shadowed === undefined) === (expected.shadowed === undefined) &&
    sameNumbers(actual.shadowed ?? [], expected.shadowed ?? []);
  if (!same) expect(actual).toEqual(expected);
};

/** A failing check with its message; nothing to pay when it holds. */
export const check = (holds: boolean, message: () => string): void => {
  if (!holds) throw new Error(message());
};
