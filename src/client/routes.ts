import type { cancelOrderDeclaration as cancelOrder } from '../adapters/http/contract/declarations/cancel-order.js';
import type { createPetDeclaration as createPet } from '../adapters/http/contract/declarations/create-pet.js';
import type { getInventoryDeclaration as getInventory } from '../adapters/http/contract/declarations/get-inventory.js';
import type { getOrderDeclaration as getOrder } from '../adapters/http/contract/declarations/get-order.js';
import type { getPetDeclaration as getPet } from '../adapters/http/contract/declarations/get-pet.js';
import type { getRateLimitDeclaration as getRateLimit } from '../adapters/http/contract/declarations/get-rate-limit.js';
import type { listOrdersDeclaration as listOrders } from '../adapters/http/contract/declarations/list-orders.js';
import type { listPetsDeclaration as listPets } from '../adapters/http/contract/declarations/list-pets.js';
import type { placeOrderDeclaration as placeOrder } from '../adapters/http/contract/declarations/place-order.js';
import type { updateOrderDeclaration as updateOrder } from '../adapters/http/contract/declarations/update-order.js';
import type { updatePetDeclaration as updatePet } from '../adapters/http/contract/declarations/update-pet.js';

interface Declarations {
  readonly listPets: typeof listPets;
  readonly createPet: typeof createPet;
  readonly getPet: typeof getPet;
  readonly updatePet: typeof updatePet;
  readonly placeOrder: typeof placeOrder;
  readonly listOrders: typeof listOrders;
  readonly getOrder: typeof getOrder;
  readonly cancelOrder: typeof cancelOrder;
  readonly updateOrder: typeof updateOrder;
  readonly getInventory: typeof getInventory;
  readonly getRateLimit: typeof getRateLimit;
}

export type OperationId = keyof Declarations;

/**
 * Method and path template of each operation, by operationId. The values must be written here
 * (the client loads no server code), but their type is the declarations' own literals: a route
 * that differs from its declaration does not compile.
 */
export const ROUTES: { readonly [Id in OperationId]: Pick<Declarations[Id], 'method' | 'path'> } = {
  listPets: { method: 'GET', path: '/pets' },
  createPet: { method: 'POST', path: '/pets' },
  getPet: { method: 'GET', path: '/pets/{petId}' },
  updatePet: { method: 'PATCH', path: '/pets/{petId}' },
  placeOrder: { method: 'POST', path: '/store/orders' },
  listOrders: { method: 'GET', path: '/store/orders' },
  getOrder: { method: 'GET', path: '/store/orders/{orderId}' },
  cancelOrder: { method: 'DELETE', path: '/store/orders/{orderId}' },
  updateOrder: { method: 'PATCH', path: '/store/orders/{orderId}' },
  getInventory: { method: 'GET', path: '/store/inventory' },
  getRateLimit: { method: 'GET', path: '/rate_limit' },
};

/** The `{name}` segments of a path template. */
export type PathParams<Template extends string> = Template extends `${string}{${infer Name}}${infer Rest}`
  ? Record<Name, number> & PathParams<Rest>
  : unknown;

/** `template` with each `{name}` replaced by its value, percent-encoded. */
export const expandPath = <Template extends string>(template: Template, params: PathParams<Template>): string =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String((params as Record<string, number>)[name])));
