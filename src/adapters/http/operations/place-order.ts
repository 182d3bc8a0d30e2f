import { validateNewOrder, type NewOrderInput } from '../../../domain/orders/order-input.js';
import type { Order } from '../../../domain/orders/order.js';
import { createIdempotently, type IdempotentCreation } from './idempotent-create.js';
import { readJsonRequest } from '../wire/json-request.js';
import type { Operation, OperationServices } from '../contract/operation.js';
import { orderJson } from '../../../domain/orders/order-json.js';
import { authenticatedCaller, type RequestContext, sendJson } from '../wire/request-context.js';
import { getOrder } from './get-order.js';
import { placeOrderDeclaration } from '../contract/declarations/place-order.js';

// `/store/orders/` from getOrder's declared path, built once; the Location is this under the base path.
const ITEM_PATH = getOrder.path.slice(0, getOrder.path.indexOf('{'));

const creation = (services: OperationServices, ctx: RequestContext): IdempotentCreation<Order, NewOrderInput> => ({
  operationId: 'placeOrder',
  validate: validateNewOrder,
  create: (input, claim, scope) => services.orders.place(authenticatedCaller(ctx), input, claim, scope),
  replayOf: (result) => (result.kind === 'order' ? result.order : undefined),
  send: (answered, order, extra) =>
    sendJson(answered, 201, orderJson(order), ['location', services.basePath + ITEM_PATH + order.id, ...(extra ?? [])]),
});

export const placeOrder = {
  ...placeOrderDeclaration,
  handler: async (ctx, services) => {
    const body = await readJsonRequest(ctx);
    if (body !== undefined) await createIdempotently(ctx, services, body, creation(services, ctx));
  },
} as const satisfies Operation;
