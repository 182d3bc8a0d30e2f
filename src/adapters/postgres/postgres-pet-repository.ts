import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { PetPageQuery, PetRepository, StoredPetPage } from '../../ports/pet-repository.js';
import { petJson } from '../../domain/pets/pet-json.js';
import { IdsExhaustedError } from '../../domain/errors.js';
import { MAX_ID, PET_STATUSES, type Inventory, type NewPet, type Pet, type PetStatus } from '../../domain/pets/pet.js';
import type { Clock } from '../../ports/clock.js';
import { claimDeadline, completeClaim, lockClaim } from './claim-records.js';
import type { PostgresDatabase } from './postgres-database.js';
import { readDistinctPages } from '../distinct-page-reads.js';
import { TurnBatch } from '../turn-batch.js';

/** A row of `pets`; bigint columns arrive as text. */
interface PetRow {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  readonly status: PetStatus;
}

const petOf = (row: PetRow): Pet => ({ id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status });

/**
 * Ids from the identity's sequence, numbered in the arrays' order (a volatile function is
 * evaluated after the sort), and a row inserted only if its id is at most MAX_ID: once ids run
 * out the statement inserts fewer rows instead of failing, so of a batch at the limit the pets
 * that still fit are created and the rest refused. The sequence goes on past MAX_ID, by at most
 * a batch per refused statement, far from bigint's end.
 */
const INSERT_PETS = `WITH numbered AS MATERIALIZED (
    SELECT nextval('pets_id_seq') AS id, name, category_id, status
    FROM unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS batch (name, category_id, status, position)
    ORDER BY position)
  INSERT INTO pets (id, name, category_id, status)
  SELECT id, name, category_id, status FROM numbered WHERE id <= ${MAX_ID}
  RETURNING id`;

/** Rows per INSERT: a bound on one statement's parameters and on how long it holds its locks. */
const MAX_BATCH = 500;

/**
 * The page reads of one turn as one statement, each distinct page once (readDistinctPages):
 * each page's JSON joined by PostgreSQL in the bytes of the domain's petJson
 * (json_build_object would add spaces), and whether a pet follows the page.
 */
const pagesOf = (rows: string): string =>
  `SELECT page.page, page.last_id, page.seen > q.page_size AS more
   FROM unnest($1::bigint[], $2::integer[], $3::text[]) WITH ORDINALITY AS q (after_id, page_size, status, position)
   CROSS JOIN LATERAL (
     SELECT string_agg('{"id":' || id || ',"name":' || to_json(name) || ',"categoryId":' || category_id || ',"status":"' || status || '"}', ',' ORDER BY id)
              FILTER (WHERE p.rank <= q.page_size) AS page,
            max(id) FILTER (WHERE p.rank <= q.page_size) AS last_id,
            count(*) AS seen
     FROM (${rows}) p
   ) page
   ORDER BY q.position`;
/** The page's pets and one more, if there is one: a keyset scan of the primary key. */
const PAGES = pagesOf('SELECT id, name, category_id, status, row_number() OVER (ORDER BY id) AS rank FROM pets WHERE id > q.after_id ORDER BY id LIMIT q.page_size + 1');
/**
 * The same on (status, id). Written as a row comparison bounded by the status, so that no plan
 * but a range scan of that index gives the order asked for: with `status = $s AND id > $a`, the
 * generic plan (plan_cache_mode) walked the primary key and filtered every row, 265 ms at a
 * million pets when fewer than a page match.
 */
const PAGES_BY_STATUS = pagesOf(
  'SELECT id, name, category_id, status, row_number() OVER (ORDER BY status, id) AS rank FROM pets WHERE (status, id) > (q.status, q.after_id) AND status <= q.status ORDER BY status, id LIMIT q.page_size + 1',
);

interface PageRow {
  readonly page: string | null;
  readonly last_id: string | null;
  readonly more: boolean | null;
}

/**
 * Pets in PostgreSQL: ids from an identity column (unique across instances), pages by keyset on
 * the primary key or on (status, id), joined into JSON by PostgreSQL, counts per status kept by
 * triggers: every read and write costs O(log n) or less.
 */
export class PostgresPetRepository implements PetRepository {
  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  /** Each pet's id, or null when ids ran out before it. */
  readonly #inserts = new TurnBatch<NewPet, number | null>(async (pets) => {
    const { rows } = await this.db.query<{ id: string }>(INSERT_PETS, [
      pets.map((pet) => pet.name),
      pets.map((pet) => String(pet.categoryId)),
      pets.map((pet) => pet.status),
    ]);
    const ids = rows.map((row) => Number(row.id)).sort((a, b) => a - b);
    return pets.map((_, index) => ids[index] ?? null);
  }, MAX_BATCH);

  async create(pet: NewPet, claim?: IdempotencyClaim): Promise<Pet> {
    if (claim === undefined) {
      const id = await this.#inserts.add(pet);
      if (id === null) throw new IdsExhaustedError('pets');
      return { id, ...pet };
    }
    const values = [[pet.name], [String(pet.categoryId)], [pet.status]];
    return this.db.transaction(async (session) => {
      const now = this.clock.now();
      const stored = await lockClaim(session, claim, now);
      if (stored?.kind === 'pet') return stored.pet;
      const { rows } = await session.query<{ id: string }>(INSERT_PETS, values);
      if (rows[0] === undefined) throw new IdsExhaustedError('pets');
      const created: Pet = { id: Number(rows[0].id), ...pet };
      await completeClaim(session, claim, { kind: 'pet', pet: created }, now);
      return created;
    }, { deadline: claimDeadline(this.db, claim) });
  }

  async get(id: number): Promise<Pet | undefined> {
    const { rows } = await this.db.read<PetRow>('SELECT id, name, category_id, status FROM pets WHERE id = $1', [id]);
    const row = rows[0];
    return row === undefined ? undefined : petOf(row);
  }

  readonly #pages = this.#pageBatch(PAGES);
  readonly #pagesByStatus = this.#pageBatch(PAGES_BY_STATUS);

  #pageBatch(sql: string): TurnBatch<PetPageQuery, StoredPetPage> {
    return new TurnBatch(
      (queries) =>
        readDistinctPages(queries, async (distinct) => {
          const { rows } = await this.db.read<PageRow>(sql, [
            distinct.map(({ afterId }) => String(afterId)),
            distinct.map(({ limit }) => limit),
            distinct.map(({ status }) => status ?? null),
          ]);
          return rows.map(
            (row): StoredPetPage => ({ json: `[${row.page ?? ''}]`, moreAfter: row.more === true && row.last_id !== null ? Number(row.last_id) : undefined }),
          );
        }),
      MAX_BATCH,
    );
  }

  async pageJson(query: PetPageQuery): Promise<StoredPetPage> {
    return (query.status === undefined ? this.#pages : this.#pagesByStatus).add(query);
  }

  async updateStatus(id: number, status: PetStatus): Promise<Pet | undefined> {
    const { rows } = await this.db.query<PetRow>('UPDATE pets SET status = $2 WHERE id = $1 RETURNING id, name, category_id, status', [id, status]);
    const row = rows[0];
    return row === undefined ? undefined : petOf(row);
  }

  /** The counts the triggers of 0004_pet_counts.sql keep: a few rows, whatever the number of pets. */
  async countByStatus(): Promise<Inventory> {
    const { rows } = await this.db.read<{ status: PetStatus; count: string }>('SELECT status, sum(n) AS count FROM pet_counts GROUP BY status');
    const counts = Object.fromEntries(PET_STATUSES.map((petStatus) => [petStatus, 0])) as Record<PetStatus, number>;
    for (const row of rows) counts[row.status] = Number(row.count);
    return counts;
  }
}
