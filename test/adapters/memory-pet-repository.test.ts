import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import { memoryStores } from './memory-stores-fixture.js';
import { runs } from '../support/property-runs.js';

describePetRepositoryContract('MemoryPetRepository', async () => memoryStores(), { numRuns: runs(2_000) });
