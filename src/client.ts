/**
 * `petstore-service/client`: a typed client of the API over fetch, for Node 20+ and browsers. It
 * loads nothing else of the package and no other package.
 */
export { PetStoreClient, type CallOptions, type CreateOptions, type PetStoreClientOptions } from './client/pet-store-client.js';
export { PetStoreError, type ClientErrorCode, type PetStoreErrorCode } from './client/pet-store-error.js';
export { DEFAULT_RETRY, type RetryOptions } from './client/retry-policy.js';
export type { RateLimitRule, RateLimitState } from './client/rate-limit-state.js';
export type {
  ApiErrorCode,
  Inventory,
  ListOrdersQuery,
  ListPetsQuery,
  NewOrder,
  NewPet,
  Order,
  OrderStatus,
  OrderUpdate,
  Page,
  Pet,
  PetStatus,
  PetUpdate,
  RateLimitStatus,
} from './client/types.js';
