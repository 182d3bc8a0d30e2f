import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { memoryStores } from './memory-stores-fixture.js';
import { runs } from '../support/property-runs.js';

describeOrderRepositoryContract('MemoryOrderRepository', async () => memoryStores(), { numRuns: runs(1_000) });
