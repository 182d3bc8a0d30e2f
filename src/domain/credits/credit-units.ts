import { MAX_CREDITS } from './credit-rule.js';
import type { CreditChange } from './credit-balance.js';

/** What every ledger checks before it touches a balance: a whole number of units in range, else a RangeError. */
export const assertCreditUnits = (units: number): void => {
  if (!Number.isInteger(units) || units < 1 || units > MAX_CREDITS) throw new RangeError(`credit units must be a whole number from 1 to ${MAX_CREDITS}, not ${units}`);
};

/** An operator's change in range: a set from 0 to MAX_CREDITS, a top-up from −MAX_CREDITS to MAX_CREDITS. */
export const assertCreditChange = (change: CreditChange): void => {
  const [value, low] = 'set' in change ? [change.set, 0] : [change.add, -MAX_CREDITS];
  if (!Number.isInteger(value) || value < low || value > MAX_CREDITS) throw new RangeError(`a credit ${'set' in change ? 'set' : 'top-up'} must be a whole number from ${low} to ${MAX_CREDITS}, not ${value}`);
};
