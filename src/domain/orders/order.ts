export const ORDER_STATUSES = ['placed', 'approved', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const isOrderStatus = (value: unknown): value is OrderStatus => (ORDER_STATUSES as readonly unknown[]).includes(value);

/** An order of one pet, owned by the caller that placed it. */
export interface Order {
  readonly id: number;
  readonly petId: number;
  readonly status: OrderStatus;
  /** RFC 3339 UTC with milliseconds (`Date.prototype.toISOString`). */
  readonly placedAt: string;
  readonly ownerId: string;
}

/** What placing stores; the store assigns the id and the order starts `placed`. */
export interface NewOrder {
  readonly petId: number;
  readonly ownerId: string;
  readonly placedAt: string;
}
