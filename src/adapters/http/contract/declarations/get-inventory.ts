import type { OperationDeclaration } from '../operation-declaration.js';
import { InventorySchema } from '../schemas.js';

export const getInventoryDeclaration = {
  operationId: 'getInventory',
  method: 'GET',
  path: '/store/inventory',
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'Count pets by status',
  responses: {
    200: { description: 'How many pets have each status, over all pets.', body: InventorySchema },
  },
} as const satisfies OperationDeclaration;
