import { sendDomainError } from '../wire/failures.js';
import type { Operation } from '../contract/operation.js';
import { orderJson } from '../../../domain/orders/order-json.js';
import { authenticatedCaller, pathParameter, sendJson } from '../wire/request-context.js';
import { getOrderDeclaration } from '../contract/declarations/get-order.js';

export const getOrder = {
  ...getOrderDeclaration,
  handler: async (ctx, { orders }) => {
    const order = await orders.get(authenticatedCaller(ctx), pathParameter(ctx, 'orderId'), ctx.span);
    if (!order.ok) return sendDomainError(ctx, order.error);
    sendJson(ctx, 200, orderJson(order.value));
  },
} as const satisfies Operation;
