import { isOrderStatus, type NewOrder, type Order } from '../../domain/orders/order.js';

/**
 * A placed order's record: JSON without the id (the hash field), its pet id first and its
 * status last, where the scripts read them and replace the status.
 */
export const orderRecord = (order: NewOrder): string =>
  JSON.stringify({ petId: order.petId, placedAt: order.placedAt, ownerId: order.ownerId, status: 'placed' });

/** Records are written only by this adapter; a malformed one means the keyspace was tampered with. */
export const orderOf = (id: number, record: string | null): Order => {
  const fields: unknown = record === null ? null : JSON.parse(record);
  if (typeof fields === 'object' && fields !== null && 'petId' in fields && 'placedAt' in fields && 'ownerId' in fields && 'status' in fields) {
    const { petId, placedAt, ownerId, status } = fields;
    if (typeof petId === 'number' && typeof placedAt === 'string' && typeof ownerId === 'string' && isOrderStatus(status)) {
      return Object.freeze({ id, petId, status, placedAt, ownerId });
    }
  }
  throw new Error(`Malformed order record ${id} in Redis`);
};
