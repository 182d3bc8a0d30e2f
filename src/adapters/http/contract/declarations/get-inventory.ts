import type { OperationDeclaration } from '../operation-declaration.js';
import { InventorySchema } from '../schemas.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

export const getInventoryDeclaration = {
  ...PET_STORE_ROUTE_OF.getInventory,
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'Count pets by status',
  responses: {
    200: { description: 'How many pets have each status, over all pets.', body: InventorySchema },
  },
} as const satisfies OperationDeclaration;
