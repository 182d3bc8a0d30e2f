import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { memoryStores } from './memory-stores-fixture.js';

describeOrderRepositoryContract('MemoryOrderRepository', async () => memoryStores(), { numRuns: 1_000 });
