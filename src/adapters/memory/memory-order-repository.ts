import { ORDER_STATUSES, type NewOrder, type Order, type OrderStatus } from '../../domain/orders/order.js';
import { IdsExhaustedError } from '../../domain/errors.js';
import { MAX_ID, type PetStatus } from '../../domain/pets/pet.js';
import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { OrderPageQuery, OrderRepository, PlaceOutcome, TransitionOutcome } from '../../ports/order-repository.js';
import type { MemoryIdempotencyRecords } from './memory-idempotency-records.js';
import type { MemoryPetRepository } from './memory-pet-repository.js';
import { SortedIds } from './sorted-ids.js';

const PET_NOT_FOUND: PlaceOutcome = { kind: 'pet_not_found' };
const PET_UNAVAILABLE: PlaceOutcome = { kind: 'pet_unavailable' };
const NOT_FOUND: TransitionOutcome = { kind: 'not_found' };

/** The ids of one owner's orders: all of them, and per status. */
interface OwnerIndex {
  readonly all: SortedIds;
  readonly byStatus: Map<OrderStatus, SortedIds>;
}

const statusIndexes = (): Map<OrderStatus, SortedIds> => new Map(ORDER_STATUSES.map((status) => [status, new SortedIds()]));

/**
 * Orders in an array by id (ids are 1..n without gaps: an order's id is its position + 1),
 * with ids indexed per status, per owner and per owner and status, so every page, filtered
 * or not, costs O(log n + limit). Pets change through the MemoryPetRepository given, and
 * Idempotency-Key records through the records shared with it. Each operation is one
 * synchronous step, so concurrent calls cannot interleave between a check and its write:
 * of any number of orders for one pet, exactly one is placed.
 */
export class MemoryOrderRepository implements OrderRepository {
  readonly #orders: Order[] = [];
  readonly #byStatus = statusIndexes();
  readonly #byOwner = new Map<string, OwnerIndex>();

  /** `lastId`: the last id given, MAX_ID; a test gives less, to reach the end without 2^53 orders. */
  constructor(
    private readonly pets: MemoryPetRepository,
    private readonly records: MemoryIdempotencyRecords,
    private readonly lastId = MAX_ID,
  ) {}

  async place(order: NewOrder, claim?: IdempotencyClaim): Promise<PlaceOutcome> {
    const done = claim === undefined ? undefined : this.records.completed(claim);
    if (done?.kind === 'order') return { kind: 'placed', order: done.order };
    const pet = this.pets.find(order.petId);
    if (pet === undefined) return PET_NOT_FOUND;
    if (pet.status !== 'available') return PET_UNAVAILABLE;
    if (this.#orders.length >= this.lastId) throw new IdsExhaustedError('orders');
    this.pets.setStatus(pet, 'pending');
    const placed: Order = Object.freeze({
      id: this.#orders.length + 1,
      petId: order.petId,
      status: 'placed',
      placedAt: order.placedAt,
      ownerId: order.ownerId,
    });
    this.#orders.push(placed);
    const owner = this.#owner(placed.ownerId);
    owner.all.insert(placed.id);
    this.#statusIndex(this.#byStatus, placed.status).insert(placed.id);
    this.#statusIndex(owner.byStatus, placed.status).insert(placed.id);
    if (claim !== undefined) this.records.complete(claim, { kind: 'order', order: placed });
    return { kind: 'placed', order: placed };
  }

  async get(id: number): Promise<Order | undefined> {
    return Number.isInteger(id) ? this.#orders[id - 1] : undefined;
  }

  async page({ afterId, limit, status, ownerId }: OrderPageQuery): Promise<readonly Order[]> {
    let index: SortedIds | undefined;
    if (ownerId !== undefined) {
      const owner = this.#byOwner.get(ownerId);
      if (owner === undefined) return [];
      index = status === undefined ? owner.all : this.#statusIndex(owner.byStatus, status);
    } else if (status !== undefined) {
      index = this.#statusIndex(this.#byStatus, status);
    } else {
      // The orders after afterId start at position afterId.
      const start = Math.max(0, afterId);
      return this.#orders.slice(start, start + limit);
    }
    const page: Order[] = [];
    for (const id of index.after(afterId, limit)) {
      const order = this.#orders[id - 1];
      if (order !== undefined) page.push(order);
    }
    return page;
  }

  async transition(id: number, from: readonly OrderStatus[], to: OrderStatus, petStatus: PetStatus): Promise<TransitionOutcome> {
    const order = Number.isInteger(id) ? this.#orders[id - 1] : undefined;
    if (order === undefined) return NOT_FOUND;
    if (!from.includes(order.status)) return { kind: 'refused', order };
    const pet = this.pets.find(order.petId);
    // Orders are placed only for stored pets, and pets are never removed.
    if (pet === undefined) throw new Error(`order ${id} holds pet ${order.petId}, which is not stored`);
    const changed: Order = Object.freeze({ ...order, status: to });
    this.#orders[id - 1] = changed;
    const owner = this.#owner(order.ownerId);
    for (const indexes of [this.#byStatus, owner.byStatus]) {
      this.#statusIndex(indexes, order.status).remove(id);
      this.#statusIndex(indexes, to).insert(id);
    }
    this.pets.setStatus(pet, petStatus);
    return { kind: 'changed', order: changed };
  }

  #owner(ownerId: string): OwnerIndex {
    let owner = this.#byOwner.get(ownerId);
    if (owner === undefined) {
      owner = { all: new SortedIds(), byStatus: statusIndexes() };
      this.#byOwner.set(ownerId, owner);
    }
    return owner;
  }

  #statusIndex(indexes: ReadonlyMap<OrderStatus, SortedIds>, status: OrderStatus): SortedIds {
    const index = indexes.get(status);
    if (index === undefined) throw new RangeError(`unknown order status: ${String(status)}`);
    return index;
  }
}
