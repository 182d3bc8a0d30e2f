import type { OperationDeclaration } from '../operation-declaration.js';
import { NewOrderSchema, OrderSchema } from '../schemas.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const placeOrderDeclaration = {
  ...PET_STORE_ROUTE_OF.placeOrder,
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'Order a pet',
  description: 'The pet must be `available`; it becomes `pending` in the same step that stores the order. Of concurrent orders for one pet, exactly one succeeds.',
  body: { description: '`{"petId": n}`; any other field is a 400.', schema: NewOrderSchema, examples: { order: { summary: 'An order of pet 1', value: { petId: 1 } } } },
  idempotent: true,
  responses: {
    201: { description: 'The order, `placed`.', body: OrderSchema, headers: { Location: 'Location' } },
    404: { description: 'No pet has this identifier.', errors: ['not_found'] },
    409: { description: 'The pet is not available.', errors: ['pet_unavailable'] },
  },
} as const satisfies OperationDeclaration;
