/**
 * Where each operation of the public API is answered, by its operationId, in the order the
 * document lists them. Its declarations take these from here, apart from their schemas, so the
 * settings check a plans file's operations and routes without loading typebox and the router:
 * every CLI command reads the settings, and most of them serve no request.
 */
export const PET_STORE_ROUTE_OF = {
  listPets: { operationId: 'listPets', method: 'GET', path: '/pets' },
  createPet: { operationId: 'createPet', method: 'POST', path: '/pets' },
  getPet: { operationId: 'getPet', method: 'GET', path: '/pets/{petId}' },
  updatePet: { operationId: 'updatePet', method: 'PATCH', path: '/pets/{petId}' },
  placeOrder: { operationId: 'placeOrder', method: 'POST', path: '/store/orders' },
  listOrders: { operationId: 'listOrders', method: 'GET', path: '/store/orders' },
  getOrder: { operationId: 'getOrder', method: 'GET', path: '/store/orders/{orderId}' },
  cancelOrder: { operationId: 'cancelOrder', method: 'DELETE', path: '/store/orders/{orderId}' },
  updateOrder: { operationId: 'updateOrder', method: 'PATCH', path: '/store/orders/{orderId}' },
  getInventory: { operationId: 'getInventory', method: 'GET', path: '/store/inventory' },
  getRateLimit: { operationId: 'getRateLimit', method: 'GET', path: '/rate_limit' },
  getOpenApiDocument: { operationId: 'getOpenApiDocument', method: 'GET', path: '/openapi.json' },
  getDocsPage: { operationId: 'getDocsPage', method: 'GET', path: '/docs' },
  getDocsAsset: { operationId: 'getDocsAsset', method: 'GET', path: '/docs/{asset}' },
} as const;

const ROUTES = Object.values(PET_STORE_ROUTE_OF);

/** The operationIds a plan's rules may match (PETSTORE_PLANS): every operation of the API, in the document's order. */
export const PET_STORE_OPERATION_IDS: readonly string[] = ROUTES.map((route) => route.operationId);

/** The same operations by method and route, as a plan's `match` may name them instead: `GET /pets` → `listPets`. */
export const PET_STORE_ROUTES: ReadonlyMap<string, string> = new Map(ROUTES.map(({ method, path, operationId }) => [`${method} ${path}`, operationId]));
