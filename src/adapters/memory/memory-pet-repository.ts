import { IdsExhaustedError } from '../../domain/errors.js';
import { MAX_ID, PET_STATUSES, type Inventory, type NewPet, type Pet, type PetStatus } from '../../domain/pets/pet.js';
import { petJson } from '../../domain/pets/pet-json.js';
import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { PetPageQuery, PetRepository, StoredPetPage } from '../../ports/pet-repository.js';
import { MemoryIdempotencyRecords } from './memory-idempotency-records.js';
import { pageOf, SortedIds } from './sorted-ids.js';

/** Pages kept between two writes; past it they are dropped and joined again as read. */
const PAGES_KEPT = 1_024;
/** Above every page limit (100): a page's key is `afterId * LIMIT_SPAN + limit`. */
const LIMIT_SPAN = 128;
/** A page's place in #pages for each filter: no filter, then PET_STATUSES' order. */
const FILTERS: readonly (PetStatus | undefined)[] = [undefined, ...PET_STATUSES];

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
  /**
   * The one page cache of the list path, keyed by what a page is (filter, then `afterId *
   * LIMIT_SPAN + limit`) and emptied by every write (#written): a page read again is the same
   * string, already flat (V8 flattens a joined string once, in place), where joining it again
   * made the transport flatten and measure it again.
   */
  readonly #pages: readonly Map<number, StoredPetPage>[] = FILTERS.map(() => new Map());
  #pagesKept = 0;
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

  async pageJson(query: PetPageQuery): Promise<StoredPetPage> {
    // Past the last id every page is empty; below it the key is exact (ids stay far below 2^46).
    if (query.afterId >= this.#lastGiven || query.limit >= LIMIT_SPAN) return this.#join(query);
    const pages = this.#pages[FILTERS.indexOf(query.status)]!;
    const key = query.afterId * LIMIT_SPAN + query.limit;
    let page = pages.get(key);
    if (page === undefined) {
      if (this.#pagesKept === PAGES_KEPT) this.#forgetPages();
      page = this.#join(query);
      pages.set(key, page);
      this.#pagesKept++;
    }
    return page;
  }

  #join({ afterId, limit, status }: PetPageQuery): StoredPetPage {
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

  /** Every write goes through here, so no kept page outlives a change. */
  #put(pet: Pet): void {
    this.#pets.set(pet.id, pet);
    this.#json.set(pet.id, petJson(pet));
    this.#forgetPages();
  }

  #forgetPages(): void {
    if (this.#pagesKept === 0) return;
    for (const pages of this.#pages) pages.clear();
    this.#pagesKept = 0;
  }

  #index(status: PetStatus): SortedIds {
    const index = this.#byStatus.get(status);
    if (index === undefined) throw new RangeError(`unknown pet status: ${String(status)}`);
    return index;
  }
}
