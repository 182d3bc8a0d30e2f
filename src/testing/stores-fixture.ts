import type { IdempotencyClaim, IdempotencyStore } from '../ports/idempotency-store.js';
import type { OrderRepository } from '../ports/order-repository.js';
import type { Pet } from '../domain/pets/pet.js';
import { petsOfJson } from '../domain/pets/pet-json.js';
import type { PetPageQuery, PetRepository } from '../ports/pet-repository.js';

/**
 * The stores of one technology over one fresh, empty store: the pets the orders move, and the
 * Idempotency-Key records both complete. `cleanup` releases it.
 */
export interface StoresFixture {
  readonly pets: PetRepository;
  readonly orders: OrderRepository;
  readonly idempotency: IdempotencyStore;
  cleanup(): Promise<void>;
}

export type CreateStores = () => Promise<StoresFixture>;

export const claimOf = (key: string, fingerprint = 'POST /v1/pets {"name":"Rex"}', scope = 'a'.repeat(64)): IdempotencyClaim => ({
  scope,
  key,
  fingerprint,
});

/** The pets of a page, read back from its JSON as PetCatalog.list reads them. */
export const pagedPets = async (pets: PetRepository, query: PetPageQuery): Promise<readonly Pet[]> => petsOfJson((await pets.pageJson(query)).json);
