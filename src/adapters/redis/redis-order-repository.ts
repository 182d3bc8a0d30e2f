import type { RedisClient } from './redis-client.js';
import { IdsExhaustedError } from '../../domain/errors.js';
import { ORDER_STATUSES, type NewOrder, type Order, type OrderStatus } from '../../domain/orders/order.js';
import { PET_STATUSES, type PetStatus } from '../../domain/pets/pet.js';
import { IDEMPOTENCY_RECORD_MS, type IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { OrderPageQuery, OrderRepository, PlaceOutcome, TransitionOutcome } from '../../ports/order-repository.js';
import { PLACE_ORDER_LUA, TRANSITION_ORDER_LUA } from './order-scripts.lua.js';
import { PAGE_LUA } from './page-script.lua.js';
import { PetsSlotKeys } from './pets-slot-keys.js';
import { orderOf, orderRecord } from './redis-order-record.js';
import { fromRedis } from './redis-failures.js';

interface OrderScripts {
  /** The number of keys first: a claim adds its record's key. */
  petstorePlaceOrder(numberOfKeys: number, ...keysAndArgs: string[]): Promise<string[]>;
  petstoreTransitionOrder(...keysAndArgs: string[]): Promise<string[]>;
  petstoreOrderPage(records: string, index: string, afterId: string, limit: number): Promise<(string | null)[]>;
}

const PET_NOT_FOUND: PlaceOutcome = { kind: 'pet_not_found' };
const PET_UNAVAILABLE: PlaceOutcome = { kind: 'pet_unavailable' };
const NOT_FOUND: TransitionOutcome = { kind: 'not_found' };

/**
 * Orders as JSON records in one hash keyed by id, indexed by sorted sets scored by id: all,
 * per status, per owner and per owner and status, so every page, filtered or not, is one
 * range from afterId. Everything lives in the `{pets}` slot with the pets and the
 * Idempotency-Key records, so placing (pet check, pet move, order, record) and a transition
 * (order and pet together) are each one script: atomic across instances, Cluster-ready.
 */
export class RedisOrderRepository implements OrderRepository {
  private readonly redis: RedisClient & OrderScripts;
  private readonly keys: PetsSlotKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.keys = new PetsSlotKeys(prefix);
    redis.defineCommand('petstorePlaceOrder', { lua: PLACE_ORDER_LUA });
    redis.defineCommand('petstoreTransitionOrder', {
      numberOfKeys: 2 + 2 * ORDER_STATUSES.length + PET_STATUSES.length,
      lua: TRANSITION_ORDER_LUA,
    });
    redis.defineCommand('petstoreOrderPage', { numberOfKeys: 2, lua: PAGE_LUA });
    this.redis = redis as RedisClient & OrderScripts;
  }

  async place(order: NewOrder, claim?: IdempotencyClaim): Promise<PlaceOutcome> {
    const record = orderRecord(order);
    const k = this.keys;
    const keys = [
      k.petRecords,
      k.petStatus('available'),
      k.petStatus('pending'),
      k.orderNext,
      k.orderRecords,
      k.orderIds,
      k.orderStatus('placed'),
      k.ownerOrders(order.ownerId),
      k.ownerOrderStatus(order.ownerId, 'placed'),
    ];
    const args = [String(order.petId), record];
    if (claim !== undefined) {
      keys.push(k.idempotency(claim));
      args.push(claim.fingerprint, String(IDEMPOTENCY_RECORD_MS));
    }
    const [outcome, id, placed] = await fromRedis(this.redis, () => this.redis.petstorePlaceOrder(keys.length, ...keys, ...args));
    if (outcome === 'placed') return { kind: 'placed', order: orderOf(Number(id), placed ?? record) };
    if (outcome === 'pet_unavailable') return PET_UNAVAILABLE;
    if (outcome === 'pet_not_found') return PET_NOT_FOUND;
    if (outcome === 'ids_exhausted') throw new IdsExhaustedError('orders');
    throw new Error(`Unexpected place order script reply: ${String(outcome)}`);
  }

  async get(id: number): Promise<Order | undefined> {
    const record = await fromRedis(this.redis, () => this.redis.hget(this.keys.orderRecords, String(id)));
    return record === null ? undefined : orderOf(id, record);
  }

  async page({ afterId, limit, status, ownerId }: OrderPageQuery): Promise<readonly Order[]> {
    if (limit < 1) return [];
    const reply = await fromRedis(this.redis, () =>
      this.redis.petstoreOrderPage(this.keys.orderRecords, this.indexOf(status, ownerId), String(afterId), limit),
    );
    const orders: Order[] = [];
    for (let i = 0; i < reply.length; i += 2) orders.push(orderOf(Number(reply[i]), reply[i + 1] ?? null));
    return orders;
  }

  /**
   * The order is read first for its owner, whose status sets the script must name (a Cluster
   * wants every key declared); an owner never changes, so the read cannot go stale. A refusal
   * already seen there is final: the order was in that status at that moment.
   */
  async transition(id: number, from: readonly OrderStatus[], to: OrderStatus, petStatus: PetStatus): Promise<TransitionOutcome> {
    const current = await this.get(id);
    if (current === undefined) return NOT_FOUND;
    if (!from.includes(current.status)) return { kind: 'refused', order: current };
    const k = this.keys;
    const keys = [
      k.orderRecords,
      k.petRecords,
      ...ORDER_STATUSES.map((status) => k.orderStatus(status)),
      ...ORDER_STATUSES.map((status) => k.ownerOrderStatus(current.ownerId, status)),
      ...PET_STATUSES.map((status) => k.petStatus(status)),
    ];
    const [outcome, record] = await fromRedis(this.redis, () =>
      this.redis.petstoreTransitionOrder(...keys, String(id), to, petStatus, ...from),
    );
    if (outcome === 'changed') return { kind: 'changed', order: orderOf(id, record ?? null) };
    if (outcome === 'refused') return { kind: 'refused', order: orderOf(id, record ?? null) };
    if (outcome === 'not_found') return NOT_FOUND;
    throw new Error(`Unexpected transition script reply: ${String(outcome)}`);
  }

  private indexOf(status: OrderStatus | undefined, ownerId: string | undefined): string {
    if (ownerId !== undefined) return status === undefined ? this.keys.ownerOrders(ownerId) : this.keys.ownerOrderStatus(ownerId, status);
    return status === undefined ? this.keys.orderIds : this.keys.orderStatus(status);
  }
}
