import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { describeApiKeyRegistryContract, describeKeyAdminContract } from '../contracts/api-key-registry-contract.js';

describeApiKeyRegistryContract(
  'MemoryApiKeyRegistry',
  async () => ({ registry: new MemoryApiKeyRegistry(), cleanup: async () => {} }),
  { numRuns: 2_000 },
);

describeKeyAdminContract('MemoryApiKeyRegistry', async (clock) => ({ registry: new MemoryApiKeyRegistry(clock), cleanup: async () => {} }));
