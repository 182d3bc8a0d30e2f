import type { NewOrder, Order, OrderStatus } from '../../domain/orders/order.js';
import type { PetStatus } from '../../domain/pets/pet.js';
import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { OrderPageQuery, OrderRepository, PlaceOutcome, TransitionOutcome } from '../../ports/order-repository.js';
import type { Clock } from '../../ports/clock.js';
import { completeClaim, lockClaim } from './claim-records.js';
import type { PostgresDatabase, SqlSession } from './postgres-database.js';

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

/**
 * Placing as one statement: the pet turns `pending` only when it is `available` (a concurrent
 * placement waits for the row lock, then finds it pending), and the order is inserted only when it did.
 */
const PLACE = `WITH held AS (UPDATE pets SET status = 'pending' WHERE id = $1 AND status = 'available' RETURNING id)
         INSERT INTO orders (pet_id, owner_id, status, placed_at) SELECT id, $2, 'placed', $3 FROM held
         RETURNING ${ORDER_COLUMNS}`;

/** The order and its pet move in one statement, or neither does. */
const TRANSITION = `WITH moved AS (UPDATE orders SET status = $3 WHERE id = $1 AND status = ANY ($2::text[]) RETURNING ${ORDER_COLUMNS}),
              pet AS (UPDATE pets SET status = $4 FROM moved WHERE pets.id = moved.pet_id)
         SELECT * FROM moved`;

/** Orders and the pets they hold, in the same database: every step that touches both is one transaction. */
export class PostgresOrderRepository implements OrderRepository {
  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async place(order: NewOrder, claim?: IdempotencyClaim): Promise<PlaceOutcome> {
    if (claim === undefined) return this.#place(this.db, order);
    return this.db.transaction(async (session) => {
      const now = this.clock.now();
      const stored = await lockClaim(session, claim, now);
      if (stored?.kind === 'order') return { kind: 'placed', order: stored.order };
      const outcome = await this.#place(session, order);
      if (outcome.kind === 'placed') await completeClaim(session, claim, { kind: 'order', order: outcome.order }, now);
      return outcome;
    });
  }

  async #place(session: SqlSession, order: NewOrder): Promise<PlaceOutcome> {
    const { rows } = await session.query<OrderRow>(PLACE, [order.petId, order.ownerId, order.placedAt]);
    const placed = rows[0];
    if (placed !== undefined) return { kind: 'placed', order: orderOf(placed) };
    const pet = await session.query('SELECT 1 FROM pets WHERE id = $1', [order.petId]);
    return pet.rowCount === 0 ? { kind: 'pet_not_found' } : { kind: 'pet_unavailable' };
  }

  async get(id: number): Promise<Order | undefined> {
    const { rows } = await this.db.read<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`, [id]);
    const row = rows[0];
    return row === undefined ? undefined : orderOf(row);
  }

  async page({ afterId, limit, status, ownerId }: OrderPageQuery): Promise<readonly Order[]> {
    // Four fixed statements, one per filter, each a range scan of its index.
    const filters = [...(status === undefined ? [] : ['status']), ...(ownerId === undefined ? [] : ['owner_id'])];
    const where = filters.map((column, index) => ` AND ${column} = $${index + 3}`).join('');
    const { rows } = await this.db.read<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id > $1${where} ORDER BY id LIMIT $2`, [
      afterId,
      limit,
      ...(status === undefined ? [] : [status]),
      ...(ownerId === undefined ? [] : [ownerId]),
    ]);
    return rows.map(orderOf);
  }

  async transition(id: number, from: readonly OrderStatus[], to: OrderStatus, petStatus: PetStatus): Promise<TransitionOutcome> {
    const { rows } = await this.db.query<OrderRow>(TRANSITION, [id, from, to, petStatus]);
    const moved = rows[0];
    if (moved !== undefined) return { kind: 'changed', order: orderOf(moved) };
    const order = await this.get(id);
    return order === undefined ? { kind: 'not_found' } : { kind: 'refused', order };
  }
}
