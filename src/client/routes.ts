import type { cancelOrder } from '../adapters/http/operations/cancel-order.js';
import type { createPet } from '../adapters/http/operations/create-pet.js';
import type { getInventory } from '../adapters/http/operations/get-inventory.js';
import type { getOrder } from '../adapters/http/operations/get-order.js';
import type { getPet } from '../adapters/http/operations/get-pet.js';
import type { listOrders } from '../adapters/http/operations/list-orders.js';
import type { listPets } from '../adapters/http/operations/list-pets.js';
import type { placeOrder } from '../adapters/http/operations/place-order.js';
import type { updateOrder } from '../adapters/http/operations/update-order.js';

interface Declarations {
  readonly listPets: typeof listPets;
  readonly createPet: typeof createPet;
  readonly getPet: typeof getPet;
  readonly placeOrder: typeof placeOrder;
  readonly listOrders: typeof listOrders;
  readonly getOrder: typeof getOrder;
  readonly cancelOrder: typeof cancelOrder;
  readonly updateOrder: typeof updateOrder;
  readonly getInventory: typeof getInventory;
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
  placeOrder: { method: 'POST', path: '/store/orders' },
  listOrders: { method: 'GET', path: '/store/orders' },
  getOrder: { method: 'GET', path: '/store/orders/{orderId}' },
  cancelOrder: { method: 'DELETE', path: '/store/orders/{orderId}' },
  updateOrder: { method: 'PATCH', path: '/store/orders/{orderId}' },
  getInventory: { method: 'GET', path: '/store/inventory' },
};

/** The `{name}` segments of a path template. */
export type PathParams<Template extends string> = Template extends `${string}{${infer Name}}${infer Rest}`
  ? Record<Name, number> & PathParams<Rest>
  : unknown;

/** `template` with each `{name}` replaced by its value, percent-encoded. */
export const expandPath = <Template extends string>(template: Template, params: PathParams<Template>): string =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String((params as Record<string, number>)[name])));
