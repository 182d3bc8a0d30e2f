import type { Order } from '../../../domain/orders/order.js';
import type { Inventory } from '../../../domain/pets/pet-catalog.js';
import { PET_STATUSES } from '../../../domain/pets/pet.js';

/** The wire Order: its owner is never shown. */
export const serializeOrder = (order: Order): string =>
  JSON.stringify({ id: order.id, petId: order.petId, status: order.status, placedAt: order.placedAt });

export const serializeOrders = (orders: readonly Order[]): string => `[${orders.map(serializeOrder).join(',')}]`;

export const serializeInventory = (inventory: Inventory): string =>
  JSON.stringify(Object.fromEntries(PET_STATUSES.map((status) => [status, inventory[status]])));
