import type { Operation } from '../contract/operation.js';
import { inventoryJson } from '../../../domain/pets/pet-json.js';
import { sendJson } from '../wire/request-context.js';
import { getInventoryDeclaration } from '../contract/declarations/get-inventory.js';

export const getInventory = {
  ...getInventoryDeclaration,
  handler: async (ctx, { catalog }) => sendJson(ctx, 200, inventoryJson(await catalog.inventory(ctx.span))),
} as const satisfies Operation;
