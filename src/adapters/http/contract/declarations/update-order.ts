import type { OperationDeclaration } from '../operation-declaration.js';
import { OrderSchema, OrderUpdateSchema } from '../schemas.js';
import { orderIdParameter } from './get-order.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const updateOrderDeclaration = {
  ...PET_STORE_ROUTE_OF.updateOrder,
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'Approve or deliver an order (staff)',
  description: '`placed -> approved -> delivered` only; delivery makes the pet `sold`. A customer key gets 403 before anything is looked up.',
  params: orderIdParameter,
  body: { description: '`{"status": "approved"}` or `{"status": "delivered"}`.', schema: OrderUpdateSchema, examples: { approve: { summary: 'Approve the order', value: { status: 'approved' } } } },
  responses: {
    200: { description: 'The order in its new status.', body: OrderSchema },
    403: { description: 'Only staff keys may change an order.', errors: ['forbidden'] },
    404: { description: 'No such order.', errors: ['not_found'] },
    409: { description: 'The order cannot move to this status from its current one.', errors: ['invalid_transition'] },
  },
} as const satisfies OperationDeclaration;
