import type { Clock } from '../../src/ports/clock.js';
import { quotaStoreChecks, type QuotaStoreContractContext } from '../../src/testing/quota-store-contract.js';
import { describeChecks } from './describe-checks.js';

/** The kit's QuotaStore contract (src/testing/quota-store-contract.ts), run by vitest. */
export const describeQuotaStoreContract = (adapterName: string, create: (clock: Clock) => Promise<QuotaStoreContractContext>): void => {
  describeChecks(`QuotaStore contract: ${adapterName}`, quotaStoreChecks(create));
};
