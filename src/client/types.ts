import type { Static } from 'typebox';
import type { HttpErrorCode } from '../adapters/http/wire/http-errors.js';
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
import type { PageLimitSchema } from '../adapters/http/contract/schemas.js';

/*
 * The wire shapes, derived from the server's operation declarations and their TypeBox schemas.
 * Every import here is `import type`: the compiled client loads neither the server nor typebox.
 */

/** An animal as the API answers it. */
export type Pet = Static<(typeof getPet)['responses'][200]['body']>;
/** What `createPet` sends: `status` defaults to `available`. */
export type NewPet = Static<(typeof createPet)['body']['schema']>;
export type PetStatus = Pet['status'];
/** What `updatePet` sends (staff keys only): the status the pet is to take. */
export type PetUpdate = Static<(typeof updatePet)['body']['schema']>;

/** An order as the API answers it; `placedAt` is RFC 3339 UTC with milliseconds. */
export type Order = Static<(typeof getOrder)['responses'][200]['body']>;
/** What `placeOrder` sends: the pet to order. */
export type NewOrder = Static<(typeof placeOrder)['body']['schema']>;
/** What `updateOrder` sends (staff keys only): `approved` or `delivered`. */
export type OrderUpdate = Static<(typeof updateOrder)['body']['schema']>;
export type OrderStatus = Order['status'];

/** How many pets have each status. */
export type Inventory = Static<(typeof getInventory)['responses'][200]['body']>;

/**
 * The key's quota as it stands (`GET /rate_limit`): its plan, each rule's limit, window, remaining
 * and reset (Unix seconds), and `bannedUntil` (Unix seconds) while banned, else null.
 */
export type RateLimitStatus = Static<(typeof getRateLimit)['responses'][200]['body']>;

/** A code of the server's Error format (`{code, message, status}`). */
export type ApiErrorCode = HttpErrorCode;

/** A listing's query: the names its declaration allows, `status` typed by what it lists. */
type ListingQuery<Declared, Status> = {
  readonly [Name in keyof Declared]?: Name extends 'status' ? Status : Name extends 'limit' ? Static<typeof PageLimitSchema> : string;
};

/** `limit` 1..100 (default 20), `status`, and `cursor` from a previous page's `nextCursor`. */
export type ListPetsQuery = ListingQuery<(typeof listPets)['query'], PetStatus>;
/** Like ListPetsQuery; a staff key lists every order, a customer key its own. */
export type ListOrdersQuery = ListingQuery<(typeof listOrders)['query'], OrderStatus>;

/** One page of a listing. */
export interface Page<Item> {
  readonly items: readonly Item[];
  /** The `cursor` of the next page (its `Link: rel="next"`); undefined on the last page. */
  readonly nextCursor: string | undefined;
}
