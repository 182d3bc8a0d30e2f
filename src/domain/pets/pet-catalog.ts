import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { PetRepository } from '../../ports/pet-repository.js';
import type { CallScope } from '../../ports/tracer.js';
import type { Caller } from '../access/caller.js';
import { notFound, refused, type DomainError } from '../errors.js';
import { nextPage, type NextPage } from '../paging/list-page.js';
import { parseListQuery, type ListQueryInput } from '../paging/list-query.js';
import { err, ok, type Result } from '../result.js';
import { validateNewPet } from './new-pet-validation.js';
import { PET_STATUSES, type Inventory, type NewPetInput, type Pet, type PetStatus } from './pet.js';
import { petCursors } from './pet-cursor.js';
import { parsePetId } from './pet-id.js';
import { petsOfJson } from './pet-json.js';
import { validatePetUpdate, type PetUpdateInput } from './pet-update.js';

export type ListPetsQuery = ListQueryInput<PetStatus>;

export interface PetPage {
  readonly pets: readonly Pet[];
  /** Present only when at least one more matching pet exists: no page reached through it is empty. */
  readonly next?: NextPage<PetStatus>;
}

/** A page as a client receives it: the JSON array of its pets (see `petJson`). */
export interface PetJsonPage {
  readonly json: string;
  readonly next?: NextPage<PetStatus>;
}

/** Each method's `scope` is the request it serves (CallScope), handed to every store call it makes. */
export class PetCatalog {
  constructor(private readonly pets: PetRepository) {}

  /** `listJson` read back as pets, for callers that work with them rather than send them. */
  async list(query: ListPetsQuery, scope?: CallScope): Promise<Result<PetPage, DomainError>> {
    const page = await this.listJson(query, scope);
    if (!page.ok) return page;
    const { json, next } = page.value;
    const pets = petsOfJson(json);
    return ok(next === undefined ? { pets } : { pets, next });
  }

  /** A page as the JSON a client receives, joined by the store from what it keeps. */
  async listJson(query: ListPetsQuery, scope?: CallScope): Promise<Result<PetJsonPage, DomainError>> {
    const parsed = parseListQuery(query, PET_STATUSES, petCursors);
    if (!parsed.ok) return parsed;
    const { limit, status, afterId } = parsed.value;
    const { json, moreAfter } = await this.pets.pageJson(status === undefined ? { afterId, limit } : { afterId, limit, status }, scope);
    const next = nextPage(moreAfter, limit, status, petCursors.encode);
    return ok(next === undefined ? { json } : { json, next });
  }

  /** Validated like a request body, whatever its type says. With a claim, the pet and its Idempotency-Key record are stored in one step. */
  async create(input: NewPetInput, claim?: IdempotencyClaim, scope?: CallScope): Promise<Result<Pet, DomainError>> {
    const pet = validateNewPet(input);
    if (!pet.ok) return pet;
    return ok(await this.pets.create(pet.value, claim, scope));
  }

  /** `petId` as a number, or as path text (plain decimal digits). */
  async get(petId: number | string, scope?: CallScope): Promise<Result<Pet, DomainError>> {
    const id = parsePetId(petId);
    if (!id.ok) return id;
    const pet = await this.pets.get(id.value, scope);
    return pet === undefined ? err(notFound(`pet ${id.value} not found`)) : ok(pet);
  }

  /**
   * Staff only, checked before anything is looked up: the pet takes the status given, whatever
   * it had. Its orders are left as they are: each later move of one still sets the pet's status
   * as it always does (approved: pending, delivered: sold, cancelled: available).
   */
  async updateStatus(caller: Caller, petId: number | string, input: PetUpdateInput, scope?: CallScope): Promise<Result<Pet, DomainError>> {
    if (caller.role !== 'staff') return err(refused('forbidden', "only staff keys may change a pet's status"));
    const id = parsePetId(petId);
    if (!id.ok) return id;
    const update = validatePetUpdate(input);
    if (!update.ok) return update;
    const pet = await this.pets.updateStatus(id.value, update.value.status, scope);
    return pet === undefined ? err(notFound(`pet ${id.value} not found`)) : ok(pet);
  }

  /** The store's write count (PetRepository.writeCount): pages stay the same while it does; undefined where no store can tell. */
  pagesVersion(): number | undefined {
    return this.pets.writeCount?.();
  }

  inventory(scope?: CallScope): Promise<Inventory> {
    return this.pets.countByStatus(scope);
  }
}
