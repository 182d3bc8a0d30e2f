import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import { memoryStores } from './memory-stores-fixture.js';

describePetRepositoryContract('MemoryPetRepository', async () => memoryStores(), { numRuns: 2_000 });
