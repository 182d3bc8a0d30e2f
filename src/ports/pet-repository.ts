import type { Inventory, NewPet, Pet, PetStatus } from '../domain/pets/pet.js';
import type { IdempotencyClaim } from './idempotency-store.js';
import type { CallScope } from './tracer.js';

export interface PetPageQuery {
  /** Only pets with an id strictly greater than this; 0 for the first page. */
  readonly afterId: number;
  readonly limit: number;
  readonly status?: PetStatus;
}

/** A page as the store joins it: the JSON array of its pets, each as `petJson` writes it. */
export interface StoredPetPage {
  /** `[]` when empty. */
  readonly json: string;
  /** The id of the page's last pet, when at least one more pet matches after it. */
  readonly moreAfter: number | undefined;
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
  create(pet: NewPet, claim?: IdempotencyClaim, scope?: CallScope): Promise<Pet>;
  get(id: number, scope?: CallScope): Promise<Pet | undefined>;
  /**
   * Ascending id, at most `limit` pets, as one JSON array joined from what the store keeps
   * (never parsed and serialised again: what a transport sends as it is), and whether more match.
   */
  pageJson(query: PetPageQuery, scope?: CallScope): Promise<StoredPetPage>;
  /**
   * The pet takes `status` in one atomic step, its indexes and counts with it; the pet as it is
   * then, or undefined when no pet has this id. Costs O(log n), whatever the number of pets.
   */
  updateStatus(id: number, status: PetStatus, scope?: CallScope): Promise<Pet | undefined>;
  /** Costs O(1), whatever the number of pets. */
  countByStatus(scope?: CallScope): Promise<Inventory>;
  /**
   * A count that moves with every write, from a store that can tell without a round trip (the
   * memory store): pages read while it stands still are the same, so a transport may keep its
   * answers to them. Absent: other instances write too, and any page may change at any time.
   */
  writeCount?(): number;
}
