import { creditLedgerChecks, type CreditLedgerContractContext } from '../../src/testing/credit-ledger-contract.js';
import { runs } from '../support/property-runs.js';
import { describeChecks } from './describe-checks.js';

/** The kit's CreditLedger contract (src/testing/credit-ledger-contract.ts), run by vitest. */
export const describeCreditLedgerContract = (adapterName: string, create: () => Promise<CreditLedgerContractContext>): void => {
  describeChecks(`CreditLedger contract: ${adapterName}`, creditLedgerChecks(create, { numRuns: runs(60) }));
};
