import { describe, it } from 'vitest';
import type { ContractCheck } from '../../src/testing/check.js';

/** The kit's checks as vitest tests: the loop the kit's guide shows, under a describe of `title`. */
export const describeChecks = (title: string, checks: readonly ContractCheck[]): void => {
  describe(title, () => {
    for (const check of checks) it(check.name, check.run);
  });
};
