import { sendDomainError } from '../wire/failures.js';
import type { Operation } from '../contract/operation.js';
import { nextPageLink } from './listing.js';
import { ordersJson } from '../../../domain/orders/order-json.js';
import { authenticatedCaller, sendJson } from '../wire/request-context.js';
import { listOrdersDeclaration } from '../contract/declarations/list-orders.js';

const PATH = listOrdersDeclaration.path;

export const listOrders = {
  ...listOrdersDeclaration,
  handler: async (ctx, { orders, basePath }) => {
    const { limit, status, cursor } = ctx.query;
    const page = await orders.list(authenticatedCaller(ctx), { limit, status, cursor }, ctx.span);
    if (!page.ok) return sendDomainError(ctx, page.error);
    const next = page.value.next;
    sendJson(ctx, 200, ordersJson(page.value.orders), next === undefined ? undefined : ['link', nextPageLink(basePath, PATH, next)]);
  },
} as const satisfies Operation;
