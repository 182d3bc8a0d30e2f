import type { OrderStatus } from '../../domain/orders/order.js';
import type { PetStatus } from '../../domain/pets/pet.js';
import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import { assertValidKeyPrefix } from './redis-key-prefix.js';

/**
 * The names of every key of pets, orders and Idempotency-Key records. All share the `{pets}`
 * hash tag right after the prefix, so they sit in one Cluster slot and each step that touches
 * several of them (placing an order moves its pet and writes its record) is one script.
 * Free text (an owner, a scope, a key) comes last or encoded, so no two keys can collide.
 */
export class PetsSlotKeys {
  readonly #base: string;
  readonly petNext: string;
  readonly petRecords: string;
  readonly petIds: string;
  readonly orderNext: string;
  readonly orderRecords: string;
  readonly orderIds: string;

  constructor(prefix: string) {
    const base = `${assertValidKeyPrefix(prefix)}{pets}:`;
    this.#base = base;
    this.petNext = `${base}next-id`;
    this.petRecords = `${base}records`;
    this.petIds = `${base}ids`;
    this.orderNext = `${base}orders:next-id`;
    this.orderRecords = `${base}orders:records`;
    this.orderIds = `${base}orders:ids`;
  }

  petStatus(status: PetStatus): string {
    return `${this.#base}status:${status}`;
  }

  orderStatus(status: OrderStatus): string {
    return `${this.#base}orders:status:${status}`;
  }

  ownerOrders(ownerId: string): string {
    return `${this.#base}orders:owner:${ownerId}`;
  }

  ownerOrderStatus(ownerId: string, status: OrderStatus): string {
    return `${this.#base}orders:owner-status:${status}:${ownerId}`;
  }

  /** The scope is percent-encoded, so its end is the first colon. */
  idempotency(claim: IdempotencyClaim): string {
    return `${this.#base}idempotency:${encodeURIComponent(claim.scope)}:${claim.key}`;
  }
}
