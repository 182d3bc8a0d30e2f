import { cancelOrder } from './cancel-order.js';
import { createPet } from './create-pet.js';
import { getDocsAsset } from './get-docs-asset.js';
import { getDocsPage } from './get-docs-page.js';
import { getInventory } from './get-inventory.js';
import { getOpenApiDocument } from './get-openapi-document.js';
import { getOrder } from './get-order.js';
import { getPet } from './get-pet.js';
import { getRateLimit } from './get-rate-limit.js';
import { listOrders } from './list-orders.js';
import { listPets } from './list-pets.js';
import { placeOrder } from './place-order.js';
import { updateOrder } from './update-order.js';
import { updatePet } from './update-pet.js';

/** The API: one declaration per operation, in the order the document lists them. */
export const PET_STORE_OPERATIONS = [
  listPets,
  createPet,
  getPet,
  updatePet,
  placeOrder,
  listOrders,
  getOrder,
  cancelOrder,
  updateOrder,
  getInventory,
  getRateLimit,
  getOpenApiDocument,
  getDocsPage,
  getDocsAsset,
] as const;
