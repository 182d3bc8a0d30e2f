import type { PetRepository } from '../../ports/pet-repository.js';
import { invalid, notFound, type DomainError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import { validateNewPet } from './new-pet-validation.js';
import { parsePageLimit } from './page-limits.js';
import { isPetStatus, PET_STATUSES, type Pet, type PetStatus } from './pet.js';
import { decodePetCursor, encodePetCursor } from './pet-cursor.js';
import { parsePetId } from './pet-id.js';

/** Raw query values: the catalog validates them, so any transport can pass what it received. */
export interface ListPetsQuery {
  readonly limit?: unknown;
  readonly status?: unknown;
  readonly cursor?: unknown;
}

export interface PetPage {
  readonly pets: readonly Pet[];
  /** Present only when at least one more matching pet exists: no page reached through it is empty. */
  readonly next?: { readonly cursor: string; readonly limit: number; readonly status?: PetStatus };
}

const parseStatus = (value: unknown): Result<PetStatus | undefined, DomainError> => {
  if (value === undefined || isPetStatus(value)) return ok(value);
  return err(invalid('status', `status must be one of ${PET_STATUSES.join(', ')}`));
};

const parseAfterId = (value: unknown, status: PetStatus | undefined): Result<number, DomainError> => {
  if (value === undefined) return ok(0);
  if (typeof value !== 'string') return err(invalid('cursor', 'cursor must be a single string'));
  const cursor = decodePetCursor(value);
  if (!cursor.ok) return cursor;
  // A cursor positions within one filtered sequence; reusing it on another would skip or repeat pets.
  if (cursor.value.status !== status) {
    return err(invalid('cursor', 'cursor was issued for a different status filter'));
  }
  return ok(cursor.value.afterId);
};

export class PetCatalog {
  constructor(private readonly pets: PetRepository) {}

  async list(query: ListPetsQuery): Promise<Result<PetPage, DomainError>> {
    const limit = parsePageLimit(query.limit);
    if (!limit.ok) return limit;
    const status = parseStatus(query.status);
    if (!status.ok) return status;
    const afterId = parseAfterId(query.cursor, status.value);
    if (!afterId.ok) return afterId;

    const filter = status.value === undefined ? {} : { status: status.value };
    // One pet more than asked tells whether a next page exists without a second query.
    const found = await this.pets.page({ afterId: afterId.value, limit: limit.value + 1, ...filter });
    const pets = found.slice(0, limit.value);
    const last = pets.at(-1);
    if (found.length <= limit.value || last === undefined) return ok({ pets });
    return ok({ pets, next: { cursor: encodePetCursor({ afterId: last.id, ...filter }), limit: limit.value, ...filter } });
  }

  async create(input: unknown): Promise<Result<Pet, DomainError>> {
    const pet = validateNewPet(input);
    if (!pet.ok) return pet;
    return ok(await this.pets.create(pet.value));
  }

  async get(petId: unknown): Promise<Result<Pet, DomainError>> {
    const id = parsePetId(petId);
    if (!id.ok) return id;
    const pet = await this.pets.get(id.value);
    return pet === undefined ? err(notFound(`pet ${id.value} not found`)) : ok(pet);
  }
}
