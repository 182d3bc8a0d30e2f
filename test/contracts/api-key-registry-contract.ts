import type { Clock } from '../../src/ports/clock.js';
import { apiKeyRegistryChecks, keyAdminChecks, type ApiKeyRegistryFixture, type KeyAdminFixture } from '../../src/testing/api-key-registry-contract.js';
import type { ContractOptions } from '../../src/testing/check.js';
import { runs } from '../support/property-runs.js';
import { describeChecks } from './describe-checks.js';

export type { ApiKeyRegistryFixture, KeyAdminFixture } from '../../src/testing/api-key-registry-contract.js';

/** The kit's ApiKeyRegistry contract (src/testing/api-key-registry-contract.ts), run by vitest. */
export const describeApiKeyRegistryContract = (adapterName: string, create: () => Promise<ApiKeyRegistryFixture>, options: ContractOptions = {}): void => {
  describeChecks(`${adapterName} fulfils the ApiKeyRegistry contract`, apiKeyRegistryChecks(create, { numRuns: options.numRuns ?? runs(100) }));
};

/** The kit's KeyAdmin contract, run by vitest. */
export const describeKeyAdminContract = (adapterName: string, create: (clock: Clock) => Promise<KeyAdminFixture>): void => {
  describeChecks(`${adapterName} fulfils the KeyAdmin contract`, keyAdminChecks(create));
};
