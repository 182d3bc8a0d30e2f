import { MemoryCreditLedger } from '../../src/adapters/memory/memory-credit-ledger.js';
import { describeCreditLedgerContract } from '../contracts/credit-ledger-contract.js';

describeCreditLedgerContract('memory', async () => ({ ledger: new MemoryCreditLedger(), cleanup: () => Promise.resolve() }));
