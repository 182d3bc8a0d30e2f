import type { OperationDeclaration } from '../operation-declaration.js';
import { listingQuery } from '../listing-query.js';
import { orderCursors } from '../../../../domain/orders/order-cursor.js';
import { OrderStatusSchema, OrdersSchema } from '../schemas.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const listOrdersDeclaration = {
  ...PET_STORE_ROUTE_OF.listOrders,
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'List orders',
  description: "The caller's orders (a staff key sees all) in ascending `id` order, paged like the pets: the next page in the `Link` header.",
  query: listingQuery('orders', OrderStatusSchema, orderCursors.shape),
  responses: {
    200: { description: 'A page of orders.', body: OrdersSchema, headers: { Link: 'NextLink' } },
  },
} as const satisfies OperationDeclaration;
