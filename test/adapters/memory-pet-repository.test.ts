import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';

describePetRepositoryContract(
  'MemoryPetRepository',
  async () => ({ repository: new MemoryPetRepository(), cleanup: async () => {} }),
  { numRuns: 2_000 },
);
