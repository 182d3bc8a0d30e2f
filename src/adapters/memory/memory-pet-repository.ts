import { PET_STATUSES, type NewPet, type Pet, type PetStatus } from '../../domain/pets/pet.js';
import type { PetPageQuery, PetRepository } from '../../ports/pet-repository.js';

/** Index of the first pet with an id above `afterId` in an array ascending by id. */
const firstAfter = (pets: readonly Pet[], afterId: number): number => {
  let low = 0;
  let high = pets.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((pets[middle]?.id ?? Infinity) <= afterId) low = middle + 1;
    else high = middle;
  }
  return low;
};

/**
 * Pets are never updated and ids only grow, so append-only arrays stay sorted by id:
 * one for all pets and one per status, each paged by binary search in O(log n + limit).
 * Stored pets are frozen, so what callers receive cannot change the store.
 */
export class MemoryPetRepository implements PetRepository {
  private readonly all: Pet[] = [];
  private readonly byStatus = new Map<PetStatus, Pet[]>(PET_STATUSES.map((status) => [status, []]));

  async create(pet: NewPet): Promise<Pet> {
    const stored = Object.freeze({ id: this.all.length + 1, name: pet.name, categoryId: pet.categoryId, status: pet.status });
    this.all.push(stored);
    this.byStatus.get(stored.status)?.push(stored);
    return stored;
  }

  async get(id: number): Promise<Pet | undefined> {
    // Ids are 1..n without gaps, so the id is the position.
    return Number.isInteger(id) ? this.all[id - 1] : undefined;
  }

  async page(query: PetPageQuery): Promise<readonly Pet[]> {
    const pets = query.status === undefined ? this.all : (this.byStatus.get(query.status) ?? []);
    const start = firstAfter(pets, query.afterId);
    return pets.slice(start, start + query.limit);
  }
}
