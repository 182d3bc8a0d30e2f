import { sendDomainError } from '../wire/failures.js';
import type { Operation } from '../contract/operation.js';
import { orderJson } from '../../../domain/orders/order-json.js';
import { authenticatedCaller, pathParameter, sendJson } from '../wire/request-context.js';
import { idSchema, OrderSchema } from '../contract/schemas.js';

export const orderIdParameter = {
  orderId: { description: 'Identifier of the order: plain decimal digits.', schema: idSchema('Identifier of the order.') },
};

export const getOrder = {
  operationId: 'getOrder',
  method: 'GET',
  path: '/store/orders/{orderId}',
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'Get an order',
  params: orderIdParameter,
  responses: {
    200: { description: 'The order.', body: OrderSchema },
    404: { description: 'No such order, or it belongs to another key (a customer cannot learn that it exists).', errors: ['not_found'] },
  },
  handler: async (ctx, { orders }) => {
    const order = await orders.get(authenticatedCaller(ctx), pathParameter(ctx, 'orderId'));
    if (!order.ok) return sendDomainError(ctx, order.error);
    sendJson(ctx, 200, orderJson(order.value));
  },
} as const satisfies Operation;
