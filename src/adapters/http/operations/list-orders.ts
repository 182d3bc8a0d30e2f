import Type from 'typebox';
import type { OrderPage } from '../../../domain/orders/order-service.js';
import { BASE_PATH } from '../base-path.js';
import { sendDomainError } from '../failures.js';
import type { Operation } from '../operation.js';
import { serializeOrders } from '../order-json.js';
import { authenticatedCaller, sendJson } from '../request-context.js';
import { OrderStatusSchema, OrdersSchema, PageLimitSchema } from '../schemas.js';

const PATH = '/store/orders';

function nextLink(next: NonNullable<OrderPage['next']>): string {
  const status = next.status === undefined ? '' : `&status=${next.status}`;
  return `<${BASE_PATH}${PATH}?limit=${next.limit}${status}&cursor=${encodeURIComponent(next.cursor)}>; rel="next"`;
}

export const listOrders = {
  operationId: 'listOrders',
  method: 'GET',
  path: PATH,
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'List orders',
  description: "The caller's orders (a staff key sees all) in ascending `id` order, paged like the pets: the next page in the `Link` header.",
  query: {
    limit: { description: 'Maximum number of orders returned: plain decimal digits.', schema: PageLimitSchema },
    status: { description: 'Keeps only orders with this status.', schema: OrderStatusSchema },
    cursor: { description: 'Opaque: taken from the `rel="next"` link of the previous page.', schema: Type.String() },
  },
  responses: {
    200: { description: 'A page of orders.', body: OrdersSchema, headers: { Link: 'NextLink' } },
  },
  handler: async (ctx, { orders }) => {
    const { limit, status, cursor } = ctx.query;
    const page = await orders.list(authenticatedCaller(ctx), { limit, status, cursor });
    if (!page.ok) return sendDomainError(ctx, page.error);
    const next = page.value.next;
    sendJson(ctx, 200, serializeOrders(page.value.orders), next === undefined ? undefined : ['link', nextLink(next)]);
  },
} as const satisfies Operation;
