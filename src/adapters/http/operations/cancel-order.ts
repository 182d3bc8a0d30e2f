import { sendDomainError } from '../wire/failures.js';
import type { Operation } from '../contract/operation.js';
import { orderJson } from '../../../domain/orders/order-json.js';
import { authenticatedCaller, pathParameter, sendJson } from '../wire/request-context.js';
import { OrderSchema } from '../contract/schemas.js';
import { orderIdParameter } from './get-order.js';

export const cancelOrder = {
  operationId: 'cancelOrder',
  method: 'DELETE',
  path: '/store/orders/{orderId}',
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'Cancel an order',
  description: 'A `placed` or `approved` order is cancelled and its pet is `available` again. Cancelling a cancelled order changes nothing. Staff may cancel any order.',
  params: orderIdParameter,
  responses: {
    200: { description: 'The order, `cancelled`.', body: OrderSchema },
    404: { description: 'No such order, or it belongs to another key.', errors: ['not_found'] },
    409: { description: 'The order is delivered.', errors: ['order_not_cancellable'] },
  },
  handler: async (ctx, { orders }) => {
    const order = await orders.cancel(authenticatedCaller(ctx), pathParameter(ctx, 'orderId'));
    if (!order.ok) return sendDomainError(ctx, order.error);
    sendJson(ctx, 200, orderJson(order.value));
  },
} as const satisfies Operation;
