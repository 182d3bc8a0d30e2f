import type { OperationDeclaration } from '../operation-declaration.js';
import { idSchema, OrderSchema } from '../schemas.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const orderIdParameter = {
  orderId: { description: 'Identifier of the order: plain decimal digits.', schema: idSchema('Identifier of the order.') },
};

export const getOrderDeclaration = {
  ...PET_STORE_ROUTE_OF.getOrder,
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'Get an order',
  params: orderIdParameter,
  responses: {
    200: { description: 'The order.', body: OrderSchema },
    404: { description: 'No such order, or it belongs to another key (a customer cannot learn that it exists).', errors: ['not_found'] },
  },
} as const satisfies OperationDeclaration;
