import type { NewOrder, Order, OrderStatus } from '../domain/orders/order.js';
import type { PetStatus } from '../domain/pets/pet.js';
import type { IdempotencyClaim } from './idempotency-store.js';
import type { CallScope } from './tracer.js';

export interface OrderPageQuery {
  /** Only orders with an id strictly greater than this; 0 for the first page. */
  readonly afterId: number;
  readonly limit: number;
  readonly status?: OrderStatus;
  /** Only the orders of this owner. */
  readonly ownerId?: string;
}

export type PlaceOutcome =
  | { readonly kind: 'placed'; readonly order: Order }
  | { readonly kind: 'pet_not_found' }
  | { readonly kind: 'pet_unavailable' };

export type TransitionOutcome =
  | { readonly kind: 'changed'; readonly order: Order }
  | { readonly kind: 'not_found' }
  /** The order's status was not one of `from`: nothing changed. */
  | { readonly kind: 'refused'; readonly order: Order };

/**
 * Orders and the pets they hold, in the store of the pets: every step that touches both is
 * atomic, across every instance sharing the store. Ordered by id, with an index per status
 * and per owner, so a page costs O(log n + limit). Adapters throw StoreUnavailableError when
 * their store cannot answer.
 */
export interface OrderRepository {
  /**
   * When the pet is `available`: it becomes `pending` and the order is stored `placed` with the
   * next order id, in one step; with a claim, its record is written in the same step.
   */
  place(order: NewOrder, claim?: IdempotencyClaim, scope?: CallScope): Promise<PlaceOutcome>;
  get(id: number, scope?: CallScope): Promise<Order | undefined>;
  /** Ascending id, at most `limit` orders. */
  page(query: OrderPageQuery, scope?: CallScope): Promise<readonly Order[]>;
  /** When the order's status is one of `from`: it becomes `to` and its pet `petStatus`, in one step. */
  transition(id: number, from: readonly OrderStatus[], to: OrderStatus, petStatus: PetStatus, scope?: CallScope): Promise<TransitionOutcome>;
}
