import type { ContractOptions } from '../../src/testing/check.js';
import { orderRepositoryChecks } from '../../src/testing/order-repository-contract.js';
import { runs } from '../support/property-runs.js';
import { describeChecks } from './describe-checks.js';
import type { CreateStores } from './stores-fixture.js';

/** The kit's OrderRepository contract (src/testing/order-repository-contract.ts), run by vitest. */
export const describeOrderRepositoryContract = (adapterName: string, create: CreateStores, options: ContractOptions = {}): void => {
  describeChecks(`${adapterName} fulfils the OrderRepository contract`, orderRepositoryChecks(create, { numRuns: options.numRuns ?? runs(100) }));
};
