import type { Redis } from 'ioredis';
import { isPetStatus, type NewPet, type Pet, type PetStatus } from '../../domain/pets/pet.js';
import type { PetPageQuery, PetRepository } from '../../ports/pet-repository.js';
import { CREATE_PET_LUA, PET_PAGE_LUA } from './pet-scripts.lua.js';
import { fromRedis } from './redis-failures.js';
import { assertValidKeyPrefix } from './redis-key-prefix.js';

interface PetScripts {
  petstoreCreatePet(next: string, records: string, all: string, ofStatus: string, record: string): Promise<string>;
  petstorePetPage(records: string, index: string, afterId: string, limit: number): Promise<(string | null)[]>;
}

/**
 * Pets as JSON records in one hash keyed by id, indexed by sorted sets scored by id: one of
 * all ids and one per status, so a page is a range from afterId (exact: ids stay below 2^53,
 * which a score holds exactly). All keys share the `{pets}` tag, so a Cluster can run the scripts.
 */
export class RedisPetRepository implements PetRepository {
  private readonly redis: Redis & PetScripts;
  private readonly keys: { readonly next: string; readonly records: string; readonly all: string; readonly base: string };

  constructor(redis: Redis, prefix: string) {
    const base = `${assertValidKeyPrefix(prefix)}{pets}:`;
    this.keys = { next: `${base}next-id`, records: `${base}records`, all: `${base}ids`, base };
    redis.defineCommand('petstoreCreatePet', { numberOfKeys: 4, lua: CREATE_PET_LUA });
    redis.defineCommand('petstorePetPage', { numberOfKeys: 2, lua: PET_PAGE_LUA });
    this.redis = redis as Redis & PetScripts;
  }

  async create(pet: NewPet): Promise<Pet> {
    const record = JSON.stringify({ name: pet.name, categoryId: pet.categoryId, status: pet.status });
    const { next, records, all } = this.keys;
    const id = await fromRedis(this.redis, () => this.redis.petstoreCreatePet(next, records, all, this.statusKey(pet.status), record));
    return petOf(Number(id), record);
  }

  async get(id: number): Promise<Pet | undefined> {
    const record = await fromRedis(this.redis, () => this.redis.hget(this.keys.records, String(id)));
    return record === null ? undefined : petOf(id, record);
  }

  async page({ afterId, limit, status }: PetPageQuery): Promise<readonly Pet[]> {
    if (limit < 1) return [];
    const index = status === undefined ? this.keys.all : this.statusKey(status);
    const reply = await fromRedis(this.redis, () => this.redis.petstorePetPage(this.keys.records, index, String(afterId), limit));
    const pets: Pet[] = [];
    for (let i = 0; i < reply.length; i += 2) pets.push(petOf(Number(reply[i]), reply[i + 1] ?? null));
    return pets;
  }

  private statusKey(status: PetStatus): string {
    return `${this.keys.base}status:${status}`;
  }
}

/** Records are written only by this class; a malformed one means the keyspace was tampered with. */
const petOf = (id: number, record: string | null): Pet => {
  const fields: unknown = record === null ? null : JSON.parse(record);
  if (typeof fields === 'object' && fields !== null && 'name' in fields && 'categoryId' in fields && 'status' in fields) {
    const { name, categoryId, status } = fields;
    if (typeof name === 'string' && typeof categoryId === 'number' && isPetStatus(status)) {
      return Object.freeze({ id, name, categoryId, status });
    }
  }
  throw new Error(`Malformed pet record ${id} in Redis`);
};
