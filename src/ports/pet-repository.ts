import type { NewPet, Pet, PetStatus } from '../domain/pets/pet.js';
import type { IdempotencyClaim } from './idempotency-store.js';

export interface PetPageQuery {
  /** Only pets with an id strictly greater than this; 0 for the first page. */
  readonly afterId: number;
  readonly limit: number;
  readonly status?: PetStatus;
}

/**
 * Pets ordered by id. Adapters throw StoreUnavailableError when their store cannot answer.
 * A page costs O(log n + limit), also when filtered by status.
 */
export interface PetRepository {
  /**
   * Assigns the next id (unique across every instance sharing the store) and stores atomically;
   * with a claim, its idempotency record is written in the same step.
   */
  create(pet: NewPet, claim?: IdempotencyClaim): Promise<Pet>;
  get(id: number): Promise<Pet | undefined>;
  /** Ascending id, at most `limit` pets. */
  page(query: PetPageQuery): Promise<readonly Pet[]>;
  /** How many pets have each status. */
  countByStatus(): Promise<Readonly<Record<PetStatus, number>>>;
}
