import type { Operation } from '../contract/operation.js';
import { inventoryJson } from '../../../domain/pets/pet-json.js';
import { sendJson } from '../wire/request-context.js';
import { InventorySchema } from '../contract/schemas.js';

export const getInventory = {
  operationId: 'getInventory',
  method: 'GET',
  path: '/store/inventory',
  auth: 'apiKey',
  tags: ['Store'],
  summary: 'Count pets by status',
  responses: {
    200: { description: 'How many pets have each status, over all pets.', body: InventorySchema },
  },
  handler: async (ctx, { catalog }) => sendJson(ctx, 200, inventoryJson(await catalog.inventory())),
} as const satisfies Operation;
