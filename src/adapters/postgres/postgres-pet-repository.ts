import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { PetPageQuery, PetRepository, StoredPetPage } from '../../ports/pet-repository.js';
import { petJson } from '../../domain/pets/pet-json.js';
import { PET_STATUSES, type Inventory, type NewPet, type Pet, type PetStatus } from '../../domain/pets/pet.js';
import type { Clock } from '../../ports/clock.js';
import { completeClaim, lockClaim } from './claim-records.js';
import type { PostgresDatabase } from './postgres-database.js';

/** A row of `pets`; bigint columns arrive as text. */
interface PetRow {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  readonly status: PetStatus;
}

const petOf = (row: PetRow): Pet => ({ id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status });

const INSERT_PET = 'INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING id';

/**
 * Pets in PostgreSQL: ids from an identity column (unique across instances), pages by keyset on
 * the primary key or on (status, id), joined into JSON here by the domain's writer.
 */
export class PostgresPetRepository implements PetRepository {
  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async create(pet: NewPet, claim?: IdempotencyClaim): Promise<Pet> {
    const values = [pet.name, pet.categoryId, pet.status];
    if (claim === undefined) {
      const { rows } = await this.db.query<{ id: string }>(INSERT_PET, values);
      return { id: Number(rows[0]?.id), ...pet };
    }
    return this.db.transaction(async (session) => {
      const now = this.clock.now();
      const stored = await lockClaim(session, claim, now);
      if (stored?.kind === 'pet') return stored.pet;
      const { rows } = await session.query<{ id: string }>(INSERT_PET, values);
      const created: Pet = { id: Number(rows[0]?.id), ...pet };
      await completeClaim(session, claim, { kind: 'pet', pet: created }, now);
      return created;
    });
  }

  async get(id: number): Promise<Pet | undefined> {
    const { rows } = await this.db.read<PetRow>('SELECT id, name, category_id, status FROM pets WHERE id = $1', [id]);
    const row = rows[0];
    return row === undefined ? undefined : petOf(row);
  }

  async pageJson({ afterId, limit, status }: PetPageQuery): Promise<StoredPetPage> {
    // One row past the page tells whether another page follows.
    const { rows } =
      status === undefined
        ? await this.db.read<PetRow>('SELECT id, name, category_id, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2', [afterId, limit + 1])
        : await this.db.read<PetRow>('SELECT id, name, category_id, status FROM pets WHERE status = $3 AND id > $1 ORDER BY id LIMIT $2', [
            afterId,
            limit + 1,
            status,
          ]);
    const page = rows.length > limit ? rows.slice(0, limit) : rows;
    let json = '[';
    for (let i = 0; i < page.length; i++) json += (i === 0 ? '' : ',') + petJson(petOf(page[i] as PetRow));
    const last = page[page.length - 1];
    return { json: json + ']', moreAfter: rows.length > limit && last !== undefined ? Number(last.id) : undefined };
  }

  async countByStatus(): Promise<Inventory> {
    // A scan of the whole table: on the pool, where it holds up no read in the pipeline.
    const { rows } = await this.db.query<{ status: PetStatus; count: string }>('SELECT status, count(*) AS count FROM pets GROUP BY status');
    const counts = Object.fromEntries(PET_STATUSES.map((petStatus) => [petStatus, 0])) as Record<PetStatus, number>;
    for (const row of rows) counts[row.status] = Number(row.count);
    return counts;
  }
}
