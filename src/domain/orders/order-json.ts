import type { Order } from './order.js';

/** The JSON of one order as a client receives it: its owner is never shown. */
export const orderJson = (order: Order): string =>
  JSON.stringify({ id: order.id, petId: order.petId, status: order.status, placedAt: order.placedAt });

/** A page of orders as the JSON array a client receives. */
export const ordersJson = (orders: readonly Order[]): string => '[' + orders.map(orderJson).join(',') + ']';
