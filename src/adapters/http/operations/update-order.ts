import { sendDomainError } from '../wire/failures.js';
import { readJsonRequest } from '../wire/json-request.js';
import type { Operation } from '../contract/operation.js';
import { validateOrderUpdate } from '../../../domain/orders/order-input.js';
import { orderJson } from '../../../domain/orders/order-json.js';
import { authenticatedCaller, pathParameter, sendError, sendJson } from '../wire/request-context.js';
import { updateOrderDeclaration } from '../contract/declarations/update-order.js';

export const updateOrder = {
  ...updateOrderDeclaration,
  handler: async (ctx, { orders }) => {
    const caller = authenticatedCaller(ctx);
    // Refused before the body is read: it closes the connection, and nothing is looked up.
    if (caller.role !== 'staff') return sendError(ctx, 'forbidden', 'Only staff keys may change an order.');
    const body = await readJsonRequest(ctx);
    if (body === undefined) return;
    const update = validateOrderUpdate(body.value);
    if (!update.ok) return sendDomainError(ctx, update.error);
    const order = await orders.update(caller, pathParameter(ctx, 'orderId'), update.value, ctx.span);
    if (!order.ok) return sendDomainError(ctx, order.error);
    sendJson(ctx, 200, orderJson(order.value));
  },
} as const satisfies Operation;
