import type { Clock } from '../../src/ports/clock.js';
import { concurrencySlotsChecks, type ConcurrencySlotsContractContext } from '../../src/testing/concurrency-slots-contract.js';
import { runs } from '../support/property-runs.js';
import { describeChecks } from './describe-checks.js';

export { CONTRACT_LEASE_MS } from '../../src/testing/concurrency-slots-contract.js';

/** The kit's ConcurrencySlots contract (src/testing/concurrency-slots-contract.ts), run by vitest. */
export const describeConcurrencySlotsContract = (adapterName: string, create: (clock: Clock) => Promise<ConcurrencySlotsContractContext>): void => {
  describeChecks(`ConcurrencySlots contract: ${adapterName}`, concurrencySlotsChecks(create, { numRuns: runs(30) }));
};
