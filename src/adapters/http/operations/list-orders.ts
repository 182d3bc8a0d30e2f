import { sendDomainError } from '../wire/failures.js';
import type { Operation } from '../contract/operation.js';
import { listingQuery, nextPageLink } from './listing.js';
import { orderCursors } from '../../../domain/orders/order-cursor.js';
import { ordersJson } from '../../../domain/orders/order-json.js';
import { authenticatedCaller, sendJson } from '../wire/request-context.js';
import { OrderStatusSchema, OrdersSchema } from '../contract/schemas.js';

const PATH = '/store/orders';

export const listOrders = {
  operationId: 'listOrders',
  method: 'GET',
  path: PATH,
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'List orders',
  description: "The caller's orders (a staff key sees all) in ascending `id` order, paged like the pets: the next page in the `Link` header.",
  query: listingQuery('orders', OrderStatusSchema, orderCursors.shape),
  responses: {
    200: { description: 'A page of orders.', body: OrdersSchema, headers: { Link: 'NextLink' } },
  },
  handler: async (ctx, { orders, basePath }) => {
    const { limit, status, cursor } = ctx.query;
    const page = await orders.list(authenticatedCaller(ctx), { limit, status, cursor });
    if (!page.ok) return sendDomainError(ctx, page.error);
    const next = page.value.next;
    sendJson(ctx, 200, ordersJson(page.value.orders), next === undefined ? undefined : ['link', nextPageLink(basePath, PATH, next)]);
  },
} as const satisfies Operation;
