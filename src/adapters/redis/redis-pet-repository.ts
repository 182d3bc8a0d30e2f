import { sendCorkedNow, type RedisClient } from './redis-client.js';
import { IdsExhaustedError } from '../../domain/errors.js';
import { PET_STATUSES, type Inventory, type NewPet, type Pet, type PetStatus } from '../../domain/pets/pet.js';
import { IDEMPOTENCY_RECORD_MS, type IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { PetPageQuery, PetRepository, StoredPetPage } from '../../ports/pet-repository.js';
import { readDistinctPages } from '../distinct-page-reads.js';
import { TurnBatch } from '../turn-batch.js';
import { PET_PAGES_JSON_LUA } from './page-script.lua.js';
import { COUNT_PETS_LUA, CREATE_PET_LUA, UPDATE_PET_STATUS_LUA } from './pet-scripts.lua.js';
import { PetsSlotKeys } from './pets-slot-keys.js';
import { petOf, petRecord } from './redis-pet-record.js';
import { fromRedis } from './redis-failures.js';

/** The most page reads one script call takes (its keys); more in one turn make further calls. */
const MAX_PAGES_PER_CALL = 256;

interface PetScripts {
  /** The number of keys first: a claim adds its record's key. */
  petstoreCreatePet(numberOfKeys: number, ...keysAndArgs: string[]): Promise<string | null>;
  /** The number of keys first: the records hash, then one sorted set per page. */
  petstorePetPagesJson(numberOfKeys: number, ...keysAndArgs: string[]): Promise<string[]>;
  petstoreCountPets(...statusKeys: string[]): Promise<string[]>;
  /** The records hash, the set of each status, then the id and the new status. */
  petstoreUpdatePetStatus(...keysAndArgs: string[]): Promise<string | null>;
}

/**
 * Pets as JSON records in one hash keyed by id, indexed by sorted sets scored by id: one of
 * all ids and one per status, so a page is a range from afterId (exact: ids stay below 2^53,
 * which a score holds exactly) and a count per status is a ZCARD. All keys share the `{pets}`
 * tag with the orders that change the pets' status, so a Cluster can run every script.
 */
export class RedisPetRepository implements PetRepository {
  private readonly redis: RedisClient & PetScripts;
  private readonly keys: PetsSlotKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.keys = new PetsSlotKeys(prefix);
    redis.defineCommand('petstoreCreatePet', { lua: CREATE_PET_LUA });
    redis.defineCommand('petstorePetPagesJson', { lua: PET_PAGES_JSON_LUA });
    redis.defineCommand('petstoreCountPets', { numberOfKeys: PET_STATUSES.length, lua: COUNT_PETS_LUA });
    redis.defineCommand('petstoreUpdatePetStatus', { numberOfKeys: 1 + PET_STATUSES.length, lua: UPDATE_PET_STATUS_LUA });
    this.redis = redis as RedisClient & PetScripts;
  }

  async create(pet: NewPet, claim?: IdempotencyClaim): Promise<Pet> {
    const record = petRecord(pet);
    const { petNext, petRecords, petIds } = this.keys;
    const keys = [petNext, petRecords, petIds, this.keys.petStatus(pet.status)];
    const args = [record];
    if (claim !== undefined) {
      keys.push(this.keys.idempotency(claim));
      args.push(claim.fingerprint, String(IDEMPOTENCY_RECORD_MS));
    }
    const id = await fromRedis(this.redis, () => this.redis.petstoreCreatePet(keys.length, ...keys, ...args));
    if (id === null) throw new IdsExhaustedError('pets');
    return petOf(Number(id), record);
  }

  async get(id: number): Promise<Pet | undefined> {
    const record = await fromRedis(this.redis, () => this.redis.hget(this.keys.petRecords, String(id)));
    return record === null ? undefined : petOf(id, record);
  }

  async pageJson(query: PetPageQuery): Promise<StoredPetPage> {
    if (query.limit < 1) return { json: '[]', moreAfter: undefined };
    return this.#pages.add(query);
  }

  /**
   * The page reads of one turn in one script call: one command to send, run and parse instead
   * of one per request, each distinct page once (readDistinctPages).
   */
  readonly #pages = new TurnBatch<PetPageQuery, StoredPetPage>(
    (queries) =>
      readDistinctPages(queries, async (distinct) => {
        const keys = [this.keys.petRecords];
        const args: string[] = [];
        for (const { afterId, limit, status } of distinct) {
          keys.push(this.#index(status));
          args.push(String(afterId), String(limit));
        }
        const reply = await fromRedis(this.redis, () => this.redis.petstorePetPagesJson(keys.length, ...keys, ...args));
        if (reply.length !== args.length) throw new Error(`The page script answered ${reply.length} values for ${distinct.length} pages`);
        const pages: StoredPetPage[] = [];
        for (let i = 0; i < reply.length; i += 2) {
          const moreAfter = reply[i + 1];
          pages.push({ json: reply[i] ?? '', moreAfter: moreAfter === '' || moreAfter === undefined ? undefined : Number(moreAfter) });
        }
        return pages;
      }),
    MAX_PAGES_PER_CALL,
    undefined,
    () => sendCorkedNow(this.redis),
  );

  #index(status: PetStatus | undefined): string {
    return status === undefined ? this.keys.petIds : this.keys.petStatus(status);
  }

  async updateStatus(id: number, status: PetStatus): Promise<Pet | undefined> {
    const keys = [this.keys.petRecords, ...PET_STATUSES.map((each) => this.keys.petStatus(each))];
    const record = await fromRedis(this.redis, () => this.redis.petstoreUpdatePetStatus(...keys, String(id), status));
    return record === null ? undefined : petOf(id, record);
  }

  async countByStatus(): Promise<Inventory> {
    const keys = PET_STATUSES.map((status) => this.keys.petStatus(status));
    const [available, pending, sold] = await fromRedis(this.redis, () => this.redis.petstoreCountPets(...keys));
    return { available: Number(available), pending: Number(pending), sold: Number(sold) };
  }
}
