import type { Clock } from '../../src/ports/clock.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { planChangeChecks, type PlanChangeCheckOptions } from '../../src/testing/quota-plan-change-contract.js';
import { describeChecks } from './describe-checks.js';

/** The kit's plan-change checks (src/testing/quota-plan-change-contract.ts), run by vitest on stores that need no letting go. */
export const describePlanChangeProperties = (storeName: string, create: (clock: Clock) => QuotaStore, options: PlanChangeCheckOptions): void => {
  describeChecks(`plan changes on ${storeName}`, planChangeChecks(async (clock) => ({ store: create(clock), cleanup: async () => {} }), options));
};
