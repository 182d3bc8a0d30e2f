import type { OperationDeclaration } from '../operation-declaration.js';
import { OrderSchema } from '../schemas.js';
import { orderIdParameter } from './get-order.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const cancelOrderDeclaration = {
  ...PET_STORE_ROUTE_OF.cancelOrder,
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
} as const satisfies OperationDeclaration;
