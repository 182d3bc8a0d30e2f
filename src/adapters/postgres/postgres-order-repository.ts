import type { NewOrder, Order, OrderStatus } from '../../domain/orders/order.js';
import { IdsExhaustedError } from '../../domain/errors.js';
import { MAX_ID, type PetStatus } from '../../domain/pets/pet.js';
import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { OrderPageQuery, OrderRepository, PlaceOutcome, TransitionOutcome } from '../../ports/order-repository.js';
import type { Clock } from '../../ports/clock.js';
import { claimDeadline, completeClaim, lockClaim } from './claim-records.js';
import type { PostgresDatabase, SqlSession } from './postgres-database.js';
import { TurnBatch } from '../turn-batch.js';

interface OrderRow {
  readonly id: string;
  readonly pet_id: string;
  readonly owner_id: string;
  readonly status: OrderStatus;
  readonly placed_at: Date;
}

const orderOf = (row: OrderRow): Order => ({
  id: Number(row.id),
  petId: Number(row.pet_id),
  status: row.status,
  placedAt: row.placed_at.toISOString(),
  ownerId: row.owner_id,
});

const ORDER_COLUMNS = 'id, pet_id, owner_id, status, placed_at';

/** A row of a batch's answer holds an order when its request placed or moved one. */
const isOrderRow = (row: Nullable<OrderRow>): row is OrderRow => row.id !== null;

/** An order's id from the identity's sequence, taken only for a pet that is held (so a refusal leaves no gap). */
const NEXT_ORDER_ID = "nextval('orders_id_seq')";

/**
 * Placing as one statement, in the claim's transaction: the pet turns `pending` only when it is
 * `available` (a concurrent placement waits for the row lock, then finds it pending), and the
 * order is inserted only when it did and its id is at most MAX_ID. One row: the order, if placed,
 * and whether the pet was held (held and not placed: ids ran out, and the transaction rolls back).
 */
const PLACE = `WITH held AS (UPDATE pets SET status = 'pending' WHERE id = $1 AND status = 'available' RETURNING id),
              numbered AS MATERIALIZED (SELECT id AS pet_id, ${NEXT_ORDER_ID} AS id FROM held),
              placed AS (INSERT INTO orders (id, pet_id, owner_id, status, placed_at) SELECT id, pet_id, $2, 'placed', $3 FROM numbered WHERE id <= ${MAX_ID}
                         RETURNING ${ORDER_COLUMNS})
         SELECT placed.*, EXISTS (SELECT 1 FROM held) AS held FROM (SELECT 1) AS one LEFT JOIN placed ON true`;

/**
 * The placements of one turn as one statement, each as PLACE would: the first request for a pet
 * in the batch may take it, later ones find it taken. Pets are locked one by one in id order (a
 * lateral lookup per distinct pet, in `first`'s order), so two instances' batches never wait on
 * each other in a cycle. Every row is found by its primary key alone, its status checked on the
 * locked row: by equality in the lateral lookup, by `= ANY` of an array elsewhere. A join with the
 * unnested batch was planned as a scan of the table, and a status beside the id let the planner
 * use a status index, where every change of a row's status leaves a dead entry for it to walk; a pet that is not `available` is never
 * locked, so a batch of transitions (which moves only pets held by an order) never meets one.
 */
const PLACE_BATCH = `WITH batch AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) WITH ORDINALITY AS b (pet_id, owner_id, placed_at, position)),
     first AS (SELECT DISTINCT ON (pet_id) * FROM batch ORDER BY pet_id, position),
     locked AS (SELECT pet.id FROM first CROSS JOIN LATERAL (SELECT id, status FROM pets WHERE pets.id = first.pet_id FOR UPDATE) pet WHERE pet.status = 'available'),
     numbered AS MATERIALIZED (SELECT first.*, ${NEXT_ORDER_ID} AS order_id FROM first WHERE first.pet_id IN (SELECT id FROM locked) ORDER BY first.position),
     fits AS (SELECT * FROM numbered WHERE order_id <= ${MAX_ID}),
     held AS (UPDATE pets SET status = 'pending' WHERE id = ANY (ARRAY(SELECT pet_id FROM fits)) RETURNING id),
     placed AS (INSERT INTO orders (id, pet_id, owner_id, status, placed_at)
                SELECT fits.order_id, fits.pet_id, fits.owner_id, 'placed', fits.placed_at FROM fits JOIN held ON held.id = fits.pet_id
                RETURNING ${ORDER_COLUMNS}),
     known AS (SELECT id FROM pets WHERE id = ANY ($1::bigint[]))
SELECT placed.id, placed.pet_id, placed.owner_id, placed.status, placed.placed_at, batch.pet_id IN (SELECT id FROM known) AS pet_exists,
       first.pet_id IN (SELECT pet_id FROM numbered) AS numbered
FROM batch LEFT JOIN first ON first.position = batch.position LEFT JOIN placed ON placed.pet_id = first.pet_id
ORDER BY batch.position`;

/**
 * The transitions of one turn from the same statuses to the same status, as one statement, each
 * as TRANSITION would: orders locked one by one in id order; of requests for one order the first moves it.
 */
const TRANSITION_BATCH = `WITH batch AS (SELECT * FROM unnest($1::bigint[]) WITH ORDINALITY AS b (id, position)),
     first AS (SELECT DISTINCT ON (id) * FROM batch ORDER BY id, position),
     locked AS (SELECT movable.id FROM first CROSS JOIN LATERAL (SELECT id, status FROM orders WHERE orders.id = first.id FOR UPDATE) movable WHERE movable.status = ANY ($2::text[])),
     moved AS (UPDATE orders SET status = $3 WHERE id = ANY (ARRAY(SELECT id FROM locked)) RETURNING ${ORDER_COLUMNS}),
     pet AS (UPDATE pets SET status = $4 WHERE id = ANY (ARRAY(SELECT pet_id FROM moved)))
SELECT moved.* FROM batch LEFT JOIN first ON first.position = batch.position LEFT JOIN moved ON moved.id = first.id
ORDER BY batch.position`;

/**
 * A page per filter, each a range scan of its index: $1 afterId, $2 limit, then the filters.
 * A filtered one is written as a row comparison bounded by the filter's value, so that only its
 * index gives the order asked for: with `status = $3 AND id > $1` the generic plan
 * (plan_cache_mode) walked the primary key and filtered every order, 57 ms at 100,000 orders
 * when none matched.
 */
const PAGE = `SELECT ${ORDER_COLUMNS} FROM orders WHERE id > $1 ORDER BY id LIMIT $2`;
const PAGE_BY_STATUS = `SELECT ${ORDER_COLUMNS} FROM orders WHERE (status, id) > ($3, $1) AND status <= $3 ORDER BY status, id LIMIT $2`;
const PAGE_OF_OWNER = `SELECT ${ORDER_COLUMNS} FROM orders WHERE (owner_id, id) > ($3, $1) AND owner_id <= $3 ORDER BY owner_id, id LIMIT $2`;
const PAGE_OF_OWNER_BY_STATUS = `SELECT ${ORDER_COLUMNS} FROM orders
  WHERE (owner_id, status, id) > ($4, $3, $1) AND (owner_id, status) <= ($4, $3) ORDER BY owner_id, status, id LIMIT $2`;

/** Per statement: bounds its parameters and how long it holds its locks. */
const MAX_BATCH = 500;

type Nullable<T> = { readonly [K in keyof T]: T[K] | null };

/** Orders and the pets they hold, in the same database: every step that touches both is one transaction. */
export class PostgresOrderRepository implements OrderRepository {
  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  /** Each placement's outcome, or null when its pet was available and ids ran out (the pet left as it was). */
  readonly #placements = new TurnBatch<NewOrder, PlaceOutcome | null>(async (orders) => {
    const { rows } = await this.db.query<Nullable<OrderRow> & { pet_exists: boolean; numbered: boolean | null }>(PLACE_BATCH, [
      orders.map((order) => String(order.petId)),
      orders.map((order) => order.ownerId),
      orders.map((order) => order.placedAt),
    ]);
    return rows.map((row): PlaceOutcome | null => {
      if (isOrderRow(row)) return { kind: 'placed', order: orderOf(row) };
      if (row.numbered === true) return null;
      return row.pet_exists ? { kind: 'pet_unavailable' } : { kind: 'pet_not_found' };
    });
  }, MAX_BATCH);

  /** One batch per kind of transition (its from statuses, its to status, its pet's status). */
  readonly #transitions = new Map<string, TurnBatch<number, Order | null>>();

  async place(order: NewOrder, claim?: IdempotencyClaim): Promise<PlaceOutcome> {
    if (claim === undefined) {
      const outcome = await this.#placements.add(order);
      if (outcome === null) throw new IdsExhaustedError('orders');
      return outcome;
    }
    return this.db.transaction(async (session) => {
      const now = this.clock.now();
      const stored = await lockClaim(session, claim, now);
      if (stored?.kind === 'order') return { kind: 'placed', order: stored.order };
      const outcome = await this.#place(session, order);
      if (outcome.kind === 'placed') await completeClaim(session, claim, { kind: 'order', order: outcome.order }, now);
      return outcome;
    }, { deadline: claimDeadline(this.db, claim) });
  }

  async #place(session: SqlSession, order: NewOrder): Promise<PlaceOutcome> {
    const { rows } = await session.query<Nullable<OrderRow> & { held: boolean }>(PLACE, [order.petId, order.ownerId, order.placedAt]);
    const placed = rows[0];
    if (placed !== undefined && isOrderRow(placed)) return { kind: 'placed', order: orderOf(placed) };
    // Thrown, so the transaction rolls the pet's hold back.
    if (placed?.held === true) throw new IdsExhaustedError('orders');
    const pet = await session.query('SELECT 1 FROM pets WHERE id = $1', [order.petId]);
    return pet.rowCount === 0 ? { kind: 'pet_not_found' } : { kind: 'pet_unavailable' };
  }

  async get(id: number): Promise<Order | undefined> {
    const { rows } = await this.db.read<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`, [id]);
    const row = rows[0];
    return row === undefined ? undefined : orderOf(row);
  }

  async page({ afterId, limit, status, ownerId }: OrderPageQuery): Promise<readonly Order[]> {
    const owner = ownerId === undefined ? [] : [ownerId];
    const { rows } =
      status === undefined
        ? await this.db.read<OrderRow>(ownerId === undefined ? PAGE : PAGE_OF_OWNER, [afterId, limit, ...owner])
        : await this.db.read<OrderRow>(ownerId === undefined ? PAGE_BY_STATUS : PAGE_OF_OWNER_BY_STATUS, [afterId, limit, status, ...owner]);
    return rows.map(orderOf);
  }

  async transition(id: number, from: readonly OrderStatus[], to: OrderStatus, petStatus: PetStatus): Promise<TransitionOutcome> {
    const moved = await this.#transitionBatch(from, to, petStatus).add(id);
    if (moved !== null) return { kind: 'changed', order: moved };
    const order = await this.get(id);
    return order === undefined ? { kind: 'not_found' } : { kind: 'refused', order };
  }

  #transitionBatch(from: readonly OrderStatus[], to: OrderStatus, petStatus: PetStatus): TurnBatch<number, Order | null> {
    const kind = `${from.join(',')}>${to}>${petStatus}`;
    let batch = this.#transitions.get(kind);
    if (batch === undefined) {
      batch = new TurnBatch(async (ids) => {
        const { rows } = await this.db.query<Nullable<OrderRow>>(TRANSITION_BATCH, [ids.map(String), from, to, petStatus]);
        return rows.map((row) => (isOrderRow(row) ? orderOf(row) : null));
      }, MAX_BATCH);
      this.#transitions.set(kind, batch);
    }
    return batch;
  }
}
