import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { PetPageQuery, PetRepository, StoredPetPage } from '../../ports/pet-repository.js';
import { petJson } from '../../domain/pets/pet-json.js';
import { PET_STATUSES, type Inventory, type NewPet, type Pet, type PetStatus } from '../../domain/pets/pet.js';
import type { Clock } from '../../ports/clock.js';
import { completeClaim, lockClaim } from './claim-records.js';
import { fromPostgres, inTransaction, type PostgresPool } from './postgres-pool.js';

/** A row of `pets`; bigint columns arrive as text. */
interface PetRow {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  readonly status: PetStatus;
}

const petOf = (row: PetRow): Pet => ({ id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status });

const INSERT_PET = {
  name: 'petstore-insert-pet',
  text: 'INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING id',
};

/**
 * Pets in PostgreSQL: ids from an identity column (unique across instances), pages by keyset on
 * the primary key or on (status, id), joined into JSON here by the domain's writer.
 */
export class PostgresPetRepository implements PetRepository {
  constructor(
    private readonly pool: PostgresPool,
    private readonly clock: Clock,
  ) {}

  async create(pet: NewPet, claim?: IdempotencyClaim): Promise<Pet> {
    const values = [pet.name, pet.categoryId, pet.status];
    if (claim === undefined) {
      const { rows } = await fromPostgres(() => this.pool.query<{ id: string }>({ ...INSERT_PET, values }));
      return { id: Number(rows[0]?.id), ...pet };
    }
    return inTransaction(this.pool, async (client) => {
      const now = this.clock.now();
      const stored = await lockClaim(client, claim, now);
      if (stored?.kind === 'pet') return stored.pet;
      const { rows } = await client.query<{ id: string }>({ ...INSERT_PET, values });
      const created: Pet = { id: Number(rows[0]?.id), ...pet };
      await completeClaim(client, claim, { kind: 'pet', pet: created }, now);
      return created;
    });
  }

  async get(id: number): Promise<Pet | undefined> {
    const { rows } = await fromPostgres(() =>
      this.pool.query<PetRow>({ name: 'petstore-get-pet', text: 'SELECT id, name, category_id, status FROM pets WHERE id = $1', values: [id] }),
    );
    const row = rows[0];
    return row === undefined ? undefined : petOf(row);
  }

  async pageJson({ afterId, limit, status }: PetPageQuery): Promise<StoredPetPage> {
    // One row past the page tells whether another page follows.
    const { rows } = await fromPostgres(() =>
      this.pool.query<PetRow>(
        status === undefined
          ? {
              name: 'petstore-page-pets',
              text: 'SELECT id, name, category_id, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2',
              values: [afterId, limit + 1],
            }
          : {
              name: 'petstore-page-pets-by-status',
              text: 'SELECT id, name, category_id, status FROM pets WHERE status = $3 AND id > $1 ORDER BY id LIMIT $2',
              values: [afterId, limit + 1, status],
            },
      ),
    );
    const page = rows.length > limit ? rows.slice(0, limit) : rows;
    let json = '[';
    for (let i = 0; i < page.length; i++) json += (i === 0 ? '' : ',') + petJson(petOf(page[i] as PetRow));
    const last = page[page.length - 1];
    return { json: json + ']', moreAfter: rows.length > limit && last !== undefined ? Number(last.id) : undefined };
  }

  async countByStatus(): Promise<Inventory> {
    const { rows } = await fromPostgres(() =>
      this.pool.query<{ status: PetStatus; count: string }>({
        name: 'petstore-count-pets',
        text: 'SELECT status, count(*) AS count FROM pets GROUP BY status',
      }),
    );
    const counts = Object.fromEntries(PET_STATUSES.map((petStatus) => [petStatus, 0])) as Record<PetStatus, number>;
    for (const row of rows) counts[row.status] = Number(row.count);
    return counts;
  }
}
