import { IdsExhaustedError } from '../../domain/errors.js';
import { MAX_ID, PET_STATUSES, type Inventory, type NewPet, type Pet, type PetStatus } from '../../domain/pets/pet.js';
import { petJson } from '../../domain/pets/pet-json.js';
import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { PetPageQuery, PetRepository, StoredPetPage } from '../../ports/pet-repository.js';
import { MemoryIdempotencyRecords } from './memory-idempotency-records.js';
import { pageOf, SortedIds } from './sorted-ids.js';

/**
 * Pets by id, each beside its JSON, with a sorted index of every id and one per status, each
 * paged in O(log n + limit). Nothing assumes the ids held are gapless: a page walks an index, so
 * a pet taken out of the maps and indexes would leave no hole in any page. A status change
 * replaces the pet, so stored pets stay frozen and what callers receive cannot change the store.
 * Every operation runs in one synchronous step: no other call can interleave with it.
 */
export class MemoryPetRepository implements PetRepository {
  readonly #pets = new Map<number, Pet>();
  /** Each pet's JSON, written when the pet is: a page only joins them. */
  readonly #json = new Map<number, string>();
  readonly #all = new SortedIds();
  readonly #byStatus = new Map<PetStatus, SortedIds>(PET_STATUSES.map((status) => [status, new SortedIds()]));
  /** Moves with every write (#put): what writeCount tells the list path's page cache. */
  #writes = 0;
  readonly #records: MemoryIdempotencyRecords;
  /** The last id given: ids are never given twice, whatever the store holds now. */
  #lastGiven = 0;

  readonly #lastId: number;

  /**
   * `records`: shared with the MemoryIdempotencyStore whose claims `create` completes. `lastId`:
   * the last id given, MAX_ID; a test gives less, to reach the end without 2^53 pets.
   */
  constructor(records = new MemoryIdempotencyRecords({ now: () => Date.now() }), { lastId = MAX_ID }: { readonly lastId?: number } = {}) {
    this.#records = records;
    this.#lastId = lastId;
  }

  async create(pet: NewPet, claim?: IdempotencyClaim): Promise<Pet> {
    const done = claim === undefined ? undefined : this.#records.completed(claim);
    if (done?.kind === 'pet') return done.pet;
    if (this.#lastGiven >= this.#lastId) throw new IdsExhaustedError('pets');
    const stored = Object.freeze({ id: ++this.#lastGiven, name: pet.name, categoryId: pet.categoryId, status: pet.status });
    this.#put(stored);
    this.#all.insert(stored.id);
    this.#index(stored.status).insert(stored.id);
    if (claim !== undefined) this.#records.complete(claim, { kind: 'pet', pet: stored });
    return stored;
  }

  async get(id: number): Promise<Pet | undefined> {
    return this.find(id);
  }

  async pageJson({ afterId, limit, status }: PetPageQuery): Promise<StoredPetPage> {
    const { ids, moreAfter } = pageOf(status === undefined ? this.#all : this.#index(status), afterId, limit);
    let json = '[';
    for (let i = 0; i < ids.length; i++) json += (i === 0 ? '' : ',') + this.#json.get(ids[i]!)!;
    return { json: json + ']', moreAfter };
  }

  async updateStatus(id: number, status: PetStatus): Promise<Pet | undefined> {
    const pet = this.find(id);
    if (pet === undefined || pet.status === status) return pet;
    return this.setStatus(pet, status);
  }

  async countByStatus(): Promise<Inventory> {
    return { available: this.#index('available').size, pending: this.#index('pending').size, sold: this.#index('sold').size };
  }

  /** `get` without a promise, for MemoryOrderRepository's synchronous steps. */
  find(id: number): Pet | undefined {
    return this.#pets.get(id);
  }

  /** For MemoryOrderRepository and updateStatus: `pet`, as `find` gave it in the same step, takes `status`. */
  setStatus(pet: Pet, status: PetStatus): Pet {
    const changed = Object.freeze({ ...pet, status });
    this.#put(changed);
    this.#index(pet.status).remove(pet.id);
    this.#index(status).insert(pet.id);
    return changed;
  }

  /** Every write goes through here, so the write count moves with each. */
  #put(pet: Pet): void {
    this.#pets.set(pet.id, pet);
    this.#json.set(pet.id, petJson(pet));
    this.#writes++;
  }

  writeCount(): number {
    return this.#writes;
  }

  #index(status: PetStatus): SortedIds {
    const index = this.#byStatus.get(status);
    if (index === undefined) throw new RangeError(`unknown pet status: ${String(status)}`);
    return index;
  }
}
