import { newIdempotencyKey } from './idempotency-key.js';
import { nextLink } from './link-header.js';
import { PetStoreError } from './pet-store-error.js';
import type { RateLimitState } from './rate-limit-state.js';
import { retryPolicy, type RetryOptions } from './retry-policy.js';
import { expandPath, type OperationId, type PathParams, ROUTES } from './routes.js';
import { type Answer, Transport } from './transport.js';
import type { Inventory, ListOrdersQuery, ListPetsQuery, NewOrder, NewPet, Order, OrderUpdate, Page, Pet, PetUpdate, RateLimitStatus } from './types.js';

export interface PetStoreClientOptions {
  /** Where the API is served, base path included: `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  /** Retries of 429 `rate_limited`, 503 and network failures; see RetryOptions for the defaults. */
  readonly retry?: RetryOptions;
  /** The fetch to use. Default: globalThis.fetch (Node 20+, browsers). */
  readonly fetch?: typeof globalThis.fetch;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call, a wait between attempts included: it rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Options of the two POSTs. */
export interface CreateOptions extends CallOptions {
  /** Sent on every attempt of this call (1 to 255 visible ASCII characters). Default: a new random UUID. */
  readonly idempotencyKey?: string;
}

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

// URL.canParse would do, but browsers have had it only since 2023.
const parsedUrl = (text: string): URL | undefined => {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
};

function validBaseUrl(baseUrl: unknown): URL {
  const url = typeof baseUrl === 'string' ? parsedUrl(baseUrl) : undefined;
  if (url === undefined || !['http:', 'https:'].includes(url.protocol) || url.search !== '' || url.hash !== '') {
    throw new TypeError(`baseUrl must be an absolute http(s) URL without query or fragment, such as http://127.0.0.1:8080/v1: got ${String(baseUrl)}`);
  }
  return url;
}

function validApiKey(apiKey: unknown): string {
  if (typeof apiKey !== 'string' || !VISIBLE_ASCII.test(apiKey)) throw new TypeError('apiKey must be a non-empty string of visible ASCII characters');
  return apiKey;
}

/**
 * A typed client of the pet store API, over fetch only: it runs in Node 20+ and in browsers.
 * A failed call rejects with a PetStoreError; 429 `rate_limited`, 409 `idempotency_conflict`, 503
 * and network failures are retried within the budget of `retry` (by default 4 attempts and 30 s
 * of waiting per call), waiting `Retry-After` when the answer gives one, else backing off
 * exponentially with full jitter. Each POST sends one Idempotency-Key, the same on every attempt, so a retry never
 * creates twice.
 */
export class PetStoreClient {
  readonly #base: URL;
  readonly #transport: Transport;

  constructor(options: PetStoreClientOptions) {
    this.#base = validBaseUrl(options.baseUrl);
    const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    if (typeof fetch !== 'function') throw new TypeError('fetch must be a function');
    this.#transport = new Transport(fetch, validApiKey(options.apiKey), retryPolicy(options.retry));
  }

  /** The `RateLimit` and `RateLimit-Policy` fields of the last answer that carried them (a 429 too); `rateLimitStatus()` asks the server. */
  get rateLimit(): RateLimitState | undefined {
    return this.#transport.rateLimit;
  }

  /** One page of pets in ascending id order. */
  async listPets(query: ListPetsQuery = {}, options: CallOptions = {}): Promise<Page<Pet>> {
    return this.#page<Pet>('listPets', query, options);
  }

  /** Every pet the query selects, page after page (following `Link: rel="next"`) to the last. */
  async *pets(query: ListPetsQuery = {}, options: CallOptions = {}): AsyncGenerator<Pet, void, undefined> {
    yield* this.#items<Pet>('listPets', query, options);
  }

  async createPet(pet: NewPet, options: CreateOptions = {}): Promise<Pet> {
    return (await this.#create('createPet', pet, options)) as Pet;
  }

  /** @deprecated The server deprecated `GET /pets/{petId}` (see its Sunset field); list pets instead. */
  async getPet(petId: number, options: CallOptions = {}): Promise<Pet> {
    return (await this.#call('getPet', { petId }, undefined, options)).body as Pet;
  }

  /** Sets a pet's status, whatever it was: staff keys only. */
  async updatePet(petId: number, update: PetUpdate, options: CallOptions = {}): Promise<Pet> {
    return (await this.#call('updatePet', { petId }, update, options)).body as Pet;
  }

  /** Orders an `available` pet; it becomes `pending`. */
  async placeOrder(order: NewOrder, options: CreateOptions = {}): Promise<Order> {
    return (await this.#create('placeOrder', order, options)) as Order;
  }

  /** One page of orders: the key's own, or every order for a staff key. */
  async listOrders(query: ListOrdersQuery = {}, options: CallOptions = {}): Promise<Page<Order>> {
    return this.#page<Order>('listOrders', query, options);
  }

  /** Every order the query selects, page after page to the last. */
  async *orders(query: ListOrdersQuery = {}, options: CallOptions = {}): AsyncGenerator<Order, void, undefined> {
    yield* this.#items<Order>('listOrders', query, options);
  }

  async getOrder(orderId: number, options: CallOptions = {}): Promise<Order> {
    return (await this.#call('getOrder', { orderId }, undefined, options)).body as Order;
  }

  /** Cancels a `placed` or `approved` order; its pet is `available` again. */
  async cancelOrder(orderId: number, options: CallOptions = {}): Promise<Order> {
    return (await this.#call('cancelOrder', { orderId }, undefined, options)).body as Order;
  }

  /** Approves or delivers an order: staff keys only. */
  async updateOrder(orderId: number, update: OrderUpdate, options: CallOptions = {}): Promise<Order> {
    return (await this.#call('updateOrder', { orderId }, update, options)).body as Order;
  }

  /** How many pets have each status. */
  async inventory(options: CallOptions = {}): Promise<Inventory> {
    return (await this.#call('getInventory', {}, undefined, options)).body as Inventory;
  }

  /**
   * The key's plan, each rule's limit, remaining and reset, and any ban's end, read from the server
   * without spending quota (`GET /rate_limit`, itself limited to a few calls a minute per key).
   */
  async rateLimitStatus(options: CallOptions = {}): Promise<RateLimitStatus> {
    return (await this.#call('getRateLimit', {}, undefined, options)).body as RateLimitStatus;
  }

  #url<Id extends OperationId>(id: Id, params: PathParams<(typeof ROUTES)[Id]['path']>, query: object = {}): URL {
    const url = new URL(this.#base.href.replace(/\/$/, '') + expandPath(ROUTES[id].path, params));
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url;
  }

  #call<Id extends OperationId>(id: Id, params: PathParams<(typeof ROUTES)[Id]['path']>, body: unknown, options: CreateOptions): Promise<Answer> {
    const { method } = ROUTES[id];
    const idempotencyKey = method === 'POST' ? (options.idempotencyKey ?? newIdempotencyKey()) : undefined;
    return this.#transport.send({
      method,
      url: this.#url(id, params),
      body,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      signal: options.signal,
    });
  }

  async #create(id: 'createPet' | 'placeOrder', body: NewPet | NewOrder, options: CreateOptions): Promise<unknown> {
    return (await this.#call(id, {}, body, options)).body;
  }

  async #page<Item>(id: 'listPets' | 'listOrders', query: object, options: CallOptions): Promise<Page<Item>> {
    const page = await this.#fetchPage<Item>(this.#url(id, {}, query), options);
    return { items: page.items, nextCursor: page.next?.searchParams.get('cursor') ?? undefined };
  }

  async *#items<Item>(id: 'listPets' | 'listOrders', query: object, options: CallOptions): AsyncGenerator<Item, void, undefined> {
    let url: URL | undefined = this.#url(id, {}, query);
    while (url !== undefined) {
      const page: { items: readonly Item[]; next: URL | undefined } = await this.#fetchPage<Item>(url, options);
      yield* page.items;
      url = page.next;
    }
  }

  async #fetchPage<Item>(url: URL, options: CallOptions): Promise<{ items: readonly Item[]; next: URL | undefined }> {
    const { body, headers } = await this.#transport.send({ method: 'GET', url, signal: options.signal });
    if (!Array.isArray(body)) throw new PetStoreError(200, 'invalid_response', `GET ${url.href} answered something other than an array`);
    const next = nextLink(headers.get('link'), url.href);
    // The API key goes only where the client was pointed.
    if (next !== undefined && next.origin !== this.#base.origin) {
      throw new PetStoreError(200, 'invalid_response', `GET ${url.href} links its next page to another origin: ${next.origin}`);
    }
    return { items: body as Item[], next };
  }
}
