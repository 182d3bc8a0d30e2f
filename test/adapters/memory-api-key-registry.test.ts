import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { describeApiKeyRegistryContract, describeKeyAdminContract } from '../contracts/api-key-registry-contract.js';
import { runs } from '../support/property-runs.js';

describeApiKeyRegistryContract(
  'MemoryApiKeyRegistry',
  async () => ({ registry: new MemoryApiKeyRegistry(), cleanup: async () => {} }),
  { numRuns: runs(2_000) },
);

describeKeyAdminContract('MemoryApiKeyRegistry', async (clock) => ({ registry: new MemoryApiKeyRegistry(clock), cleanup: async () => {} }));
