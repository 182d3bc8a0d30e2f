import { sendDomainError } from '../wire/failures.js';
import { readJsonRequest } from '../wire/json-request.js';
import type { Operation } from '../contract/operation.js';
import { validateOrderUpdate } from '../../../domain/orders/order-input.js';
import { orderJson } from '../../../domain/orders/order-json.js';
import { authenticatedCaller, pathParameter, sendError, sendJson } from '../wire/request-context.js';
import { OrderSchema, OrderUpdateSchema } from '../contract/schemas.js';
import { orderIdParameter } from './get-order.js';

export const updateOrder = {
  operationId: 'updateOrder',
  method: 'PATCH',
  path: '/store/orders/{orderId}',
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'Approve or deliver an order (staff)',
  description: '`placed -> approved -> delivered` only; delivery makes the pet `sold`. A customer key gets 403 before anything is looked up.',
  params: orderIdParameter,
  body: { description: '`{"status": "approved"}` or `{"status": "delivered"}`.', schema: OrderUpdateSchema },
  responses: {
    200: { description: 'The order in its new status.', body: OrderSchema },
    403: { description: 'Only staff keys may change an order.', errors: ['forbidden'] },
    404: { description: 'No such order.', errors: ['not_found'] },
    409: { description: 'The order cannot move to this status from its current one.', errors: ['invalid_transition'] },
  },
  handler: async (ctx, { orders }) => {
    const caller = authenticatedCaller(ctx);
    // Refused before the body is read: it closes the connection, and nothing is looked up.
    if (caller.role !== 'staff') return sendError(ctx, 'forbidden', 'Only staff keys may change an order.');
    const body = await readJsonRequest(ctx);
    if (body === undefined) return;
    const update = validateOrderUpdate(body.value);
    if (!update.ok) return sendDomainError(ctx, update.error);
    const order = await orders.update(caller, pathParameter(ctx, 'orderId'), update.value);
    if (!order.ok) return sendDomainError(ctx, order.error);
    sendJson(ctx, 200, orderJson(order.value));
  },
} as const satisfies Operation;
