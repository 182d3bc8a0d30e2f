import { idExhaustionChecks, type CreateStoresNearIdLimit } from '../../src/testing/id-exhaustion-contract.js';
import { describeChecks } from './describe-checks.js';

/** The kit's id-exhaustion contract (src/testing/id-exhaustion-contract.ts), run by vitest. */
export const describeIdExhaustionContract = (name: string, create: CreateStoresNearIdLimit): void => {
  describeChecks(`${name}: when ids run out`, idExhaustionChecks(create));
};
