import type { Clock } from '../../ports/clock.js';
import type { IdempotencyClaim } from '../../ports/idempotency-store.js';
import type { OrderRepository } from '../../ports/order-repository.js';
import type { CallScope } from '../../ports/tracer.js';
import type { Caller } from '../access/caller.js';
import { notFound, refused, type DomainError } from '../errors.js';
import { parseId } from '../paging/ids.js';
import { listPage, type NextPage } from '../paging/list-page.js';
import { parseListQuery, type ListQueryInput } from '../paging/list-query.js';
import { err, ok, type Result } from '../result.js';
import { ORDER_STATUSES, type Order, type OrderStatus } from './order.js';
import { orderCursors } from './order-cursor.js';
import { validateNewOrder, validateOrderUpdate, type NewOrderInput, type OrderUpdateInput } from './order-input.js';
import { ORDER_TRANSITIONS, PET_STATUS_OF_ORDER, STAFF_STATUS_ACTIONS, type OrderAction } from './order-status-machine.js';

export type ListOrdersQuery = ListQueryInput<OrderStatus>;

export interface OrderPage {
  readonly orders: readonly Order[];
  readonly next?: NextPage<OrderStatus>;
}

const canSee = (caller: Caller, order: Order): boolean => caller.role === 'staff' || order.ownerId === caller.id;
// A customer cannot learn that another's order exists: it is not found, like one that does not.
const orderNotFound = (id: number): DomainError => notFound(`order ${id} not found`);

/**
 * The Store group: orders that move pets through their statuses, over the OrderRepository port.
 * Each method's `scope` is the request it serves (CallScope), handed to every store call it makes.
 */
export class OrderService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly clock: Clock,
  ) {}

  /** With a claim, the order and its Idempotency-Key record are stored in one step. */
  async place(caller: Caller, input: NewOrderInput, claim?: IdempotencyClaim, scope?: CallScope): Promise<Result<Order, DomainError>> {
    const body = validateNewOrder(input);
    if (!body.ok) return body;
    const { petId } = body.value;
    const placedAt = new Date(this.clock.now()).toISOString();
    const outcome = await this.orders.place({ petId, ownerId: caller.id, placedAt }, claim, scope);
    if (outcome.kind === 'pet_not_found') return err(notFound(`pet ${petId} not found`));
    if (outcome.kind === 'pet_unavailable') return err(refused('pet_unavailable', `pet ${petId} is not available`));
    return ok(outcome.order);
  }

  /** The caller's orders (all of them for staff), ascending id, paged like pets. */
  async list(caller: Caller, query: ListOrdersQuery, scope?: CallScope): Promise<Result<OrderPage, DomainError>> {
    const parsed = parseListQuery(query, ORDER_STATUSES, orderCursors);
    if (!parsed.ok) return parsed;
    const { limit, status, afterId } = parsed.value;
    const found = await this.orders.page(
      {
        afterId,
        limit: limit + 1,
        ...(status === undefined ? {} : { status }),
        ...(caller.role === 'staff' ? {} : { ownerId: caller.id }),
      },
      scope,
    );
    const { items, next } = listPage(found, limit, status, orderCursors.encode);
    return ok(next === undefined ? { orders: items } : { orders: items, next });
  }

  async get(caller: Caller, orderId: number | string, scope?: CallScope): Promise<Result<Order, DomainError>> {
    const id = parseId('orderId', orderId);
    if (!id.ok) return id;
    const order = await this.orders.get(id.value, scope);
    return order !== undefined && canSee(caller, order) ? ok(order) : err(orderNotFound(id.value));
  }

  /** Cancelling a cancelled order changes nothing and succeeds; a delivered one cannot be cancelled. */
  async cancel(caller: Caller, orderId: number | string, scope?: CallScope): Promise<Result<Order, DomainError>> {
    const order = await this.get(caller, orderId, scope);
    if (!order.ok) return order;
    if (order.value.status === ORDER_TRANSITIONS.cancel.to) return order;
    const moved = await this.move(order.value.id, 'cancel', scope);
    if (moved.ok || moved.error.code !== 'invalid_transition') return moved;
    // Refused: it was delivered, or cancelled meanwhile by another request.
    const current = await this.get(caller, orderId, scope);
    if (current.ok && current.value.status === ORDER_TRANSITIONS.cancel.to) return current;
    return err(refused('order_not_cancellable', `order ${order.value.id} is delivered and cannot be cancelled`));
  }

  /** Staff only, checked before anything is looked up: placed -> approved -> delivered. */
  async update(caller: Caller, orderId: number | string, input: OrderUpdateInput, scope?: CallScope): Promise<Result<Order, DomainError>> {
    if (caller.role !== 'staff') return err(refused('forbidden', 'only staff keys may change an order'));
    const id = parseId('orderId', orderId);
    if (!id.ok) return id;
    const update = validateOrderUpdate(input);
    if (!update.ok) return update;
    return this.move(id.value, STAFF_STATUS_ACTIONS[update.value.status], scope);
  }

  private async move(id: number, action: OrderAction, scope: CallScope | undefined): Promise<Result<Order, DomainError>> {
    const { from, to } = ORDER_TRANSITIONS[action];
    const outcome = await this.orders.transition(id, from, to, PET_STATUS_OF_ORDER[to], scope);
    if (outcome.kind === 'not_found') return err(orderNotFound(id));
    if (outcome.kind === 'refused') {
      return err(refused('invalid_transition', `order ${id} is ${outcome.order.status}: it cannot become ${to}`));
    }
    return ok(outcome.order);
  }
}
