import type { ContractOptions } from '../../src/testing/check.js';
import { petRepositoryChecks } from '../../src/testing/pet-repository-contract.js';
import { runs } from '../support/property-runs.js';
import { describeChecks } from './describe-checks.js';
import type { CreateStores } from './stores-fixture.js';

/** The kit's PetRepository contract (src/testing/pet-repository-contract.ts), run by vitest. */
export const describePetRepositoryContract = (adapterName: string, create: CreateStores, options: ContractOptions = {}): void => {
  describeChecks(`${adapterName} fulfils the PetRepository contract`, petRepositoryChecks(create, { numRuns: options.numRuns ?? runs(100) }));
};
