import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, PetStoreClient, type Order, type Pet } from '../../src/client.js';
import { IDEMPOTENCY_IN_FLIGHT_MS } from '../../src/ports/idempotency-store.js';

/**
 * A store that can be frozen (SIGSTOP) at one point of a request: as the first command that
 * `matches` picks reaches it, before the store reads it, so the store runs it only once thawed.
 */
export interface StoreFreezer {
  arm(matches: (text: string) => boolean): void;
  /** Whether it froze since the last arm. */
  fired(): boolean;
  /** Forgets an arm that has not fired, and thaws the store if it froze. Idempotent. */
  release(): void;
  /** Epoch ms at which the in-flight mark of `idempotencyKey` ends, as the (thawed) store says now; undefined when there is none. */
  markEnd(idempotencyKey: string): Promise<number | undefined>;
}

/** One attempt of the typed client, as it received the answer. */
export interface Attempt {
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfter: string | null;
  readonly replayed: string | null;
  readonly idempotencyKey: string | null;
  /** Date.now() when the answer came. */
  readonly answeredAt: number;
  /** For a 409: the end of the mark that held it off, read from the store right after. */
  readonly markEnd?: number | undefined;
}

/** An order's placedAt time: only the command that places the order carries one. */
const PLACED_AT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

const CUSTOMER = 'freeze-cust-1';
const STAFF = 'freeze-staff-1';
/** PETSTORE_API_KEYS of the service under test: a customer who creates, a staff key who lists every order. */
export const FREEZE_API_KEYS = `${CUSTOMER}:enterprise:100000:10000000,${STAFF}:enterprise:100000:10000000:staff`;

/** A service (started with FREEZE_API_KEYS) on a store that can be frozen. */
export interface FrozenService {
  readonly baseUrl: string;
  readonly freezer: StoreFreezer;
  close(): Promise<void>;
}

/** Time an answer may take from the server to the client (and a mark read from the store), on a loaded machine. */
const TRANSIT_MS = 250;

/**
 * Sends one create through the typed client (its default retry policy, real waits) with the
 * store frozen at the first command `point` picks (given the Idempotency-Key), and thaws the
 * store as the first 503 comes, as when a store comes back after an outage. Resolves with
 * what the call resolved with and every attempt made; any checks are the caller's.
 */
async function createThroughFreeze<T>(
  freezer: StoreFreezer,
  client: { readonly baseUrl: string; readonly apiKey: string },
  point: (text: string, idempotencyKey: string) => boolean,
  create: (client: PetStoreClient, idempotencyKey: string) => Promise<T>,
): Promise<{ readonly created: T; readonly attempts: readonly Attempt[]; readonly thawedAt: number | undefined }> {
  const idempotencyKey = `frozen-${randomUUID()}`;
  const attempts: Attempt[] = [];
  let thawedAt: number | undefined;
  // Records and passes every answer on; it must not throw, or the client would take it for a network error.
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    const answeredAt = Date.now();
    if (response.status === 503 && thawedAt === undefined) {
      freezer.release();
      thawedAt = Date.now();
    }
    const body = (await response.clone().json().catch(() => undefined)) as { code?: string } | undefined;
    const sentKey = new Headers(init?.headers).get('idempotency-key');
    const markEnd = response.status === 409 ? await freezer.markEnd(idempotencyKey).catch(() => undefined) : undefined;
    attempts.push({
      status: response.status,
      code: body?.code,
      retryAfter: response.headers.get('retry-after'),
      replayed: response.headers.get('idempotent-replayed'),
      idempotencyKey: sentKey,
      answeredAt,
      markEnd,
    });
    return response;
  };
  freezer.arm((text) => point(text, idempotencyKey));
  try {
    const created = await create(new PetStoreClient({ baseUrl: client.baseUrl, apiKey: client.apiKey, fetch }), idempotencyKey);
    return { created, attempts, thawedAt };
  } catch (error) {
    throw new Error(`the create failed after ${JSON.stringify(attempts)}`, { cause: error });
  } finally {
    freezer.release();
  }
}

/**
 * The attempts of a create through a freeze: a 503 first (the store froze), then only 503s and
 * 409 idempotency_conflict each with a Retry-After that ends no later than the mark that held it
 * off, then a 201 within the lifetime of a mark made at the latest when the store thawed; one
 * Idempotency-Key throughout, within the client's default budget. `storedWhileFrozen`: the
 * frozen step stored the record, so the 201 replays it; otherwise the frozen claim left a mark
 * that held a retry off (a 409) and the 201 is a creation anew. `givesUp`: the store gives the
 * frozen step up once thawed, as the 503 promised (PostgreSQL cancels it): nothing was stored, the
 * 201 is a creation anew, and a 409 comes only if the frozen claim's mark was made before the cancel.
 */
function expectRetriedTo201(
  freezer: StoreFreezer,
  run: { readonly attempts: readonly Attempt[]; readonly thawedAt: number | undefined },
  storedWhileFrozen: boolean,
  givesUp: boolean,
): void {
  const { attempts, thawedAt } = run;
  const trail = JSON.stringify(attempts);
  expect(freezer.fired(), 'the store froze at the chosen point').toBe(true);
  expect(attempts[0]?.status, trail).toBe(503);
  expect(attempts.length, trail).toBeLessThanOrEqual(DEFAULT_RETRY.maxAttempts);
  expect(new Set(attempts.map((attempt) => attempt.idempotencyKey)), trail).toEqual(new Set([attempts[0]?.idempotencyKey]));
  const last = attempts.at(-1);
  expect(last?.status, trail).toBe(201);
  for (const attempt of attempts.slice(0, -1)) {
    if (attempt.status === 503) continue;
    expect(`${attempt.status} ${attempt.code}`, trail).toBe('409 idempotency_conflict');
    expect(attempt.retryAfter, `a 409 without Retry-After: ${trail}`).toMatch(/^[1-9][0-9]*$/);
    expect(attempt.markEnd, `the mark behind a 409: ${trail}`).toBeDefined();
    expect(attempt.answeredAt + Number(attempt.retryAfter) * 1000, `Retry-After past the mark's end: ${trail}`).toBeLessThanOrEqual((attempt.markEnd ?? 0) + TRANSIT_MS);
  }
  if (last === undefined || thawedAt === undefined) throw new Error(`no attempt, or no 503 to thaw on: ${trail}`);
  expect(last.answeredAt, `the 201 past the mark's lifetime: ${trail}`).toBeLessThanOrEqual(thawedAt + IDEMPOTENCY_IN_FLIGHT_MS + TRANSIT_MS);
  expect(last.replayed, trail).toBe(storedWhileFrozen && !givesUp ? 'true' : null);
  if (!storedWhileFrozen && !givesUp) expect(attempts.map((attempt) => attempt.status), trail).toContain(409);
}

/**
 * Freezes the store of `start`'s service at the claim and at the creating step of a create and
 * of an order placement, retries with the typed client, and expects one record and a 201
 * within the mark's lifetime each time. `givesUpFrozenSteps`: the store cancels a step whose
 * request was answered 503 (PostgreSQL), where another runs it once thawed (Redis).
 */
export function describeRetriesThroughFreeze(storeName: string, start: () => Promise<FrozenService>, { givesUpFrozenSteps = false } = {}): void {
  describe(`Idempotency-Key retries through a freeze of ${storeName}, as the typed client makes them`, () => {
    let service: FrozenService;
    let staff: PetStoreClient;
    let customer: { readonly baseUrl: string; readonly apiKey: string };

    beforeAll(async () => {
      service = await start();
      customer = { baseUrl: service.baseUrl, apiKey: CUSTOMER };
      staff = new PetStoreClient({ baseUrl: service.baseUrl, apiKey: STAFF });
    });
    afterAll(async () => {
      service?.freezer.release();
      await service?.close();
    });

    const petsNamed = async (name: string): Promise<Pet[]> => {
      const found: Pet[] = [];
      for await (const pet of staff.pets()) if (pet.name === name) found.push(pet);
      return found;
    };
    const ordersOfPet = async (petId: number): Promise<Order[]> => {
      const found: Order[] = [];
      for await (const order of staff.orders()) if (order.petId === petId) found.push(order);
      return found;
    };

    it.each([
      [`its claim on the key (${storeName} ${givesUpFrozenSteps ? 'gives it up, or marks it in flight,' : 'marks it in flight'} once thawed)`, false],
      [`its creating step (${storeName} ${givesUpFrozenSteps ? 'gives it up once thawed: nothing stored' : 'stores the pet once thawed, the reply lost'})`, true],
    ] as const)('POST /v1/pets frozen at %s: one pet, and a 201 within the mark’s lifetime', async (_, storedWhileFrozen) => {
      const name = `Frozen ${storedWhileFrozen ? 'store' : 'claim'} ${Date.now()}`;
      // The claim names the key but not the pet; the step that stores the pet names the pet.
      const point = (text: string, key: string): boolean => (storedWhileFrozen ? text.includes(name) : text.includes(key) && !text.includes(name));
      const run = await createThroughFreeze(service.freezer, customer, point, (client, idempotencyKey) =>
        client.createPet({ name, categoryId: 1 }, { idempotencyKey }),
      );
      expectRetriedTo201(service.freezer, run, storedWhileFrozen, givesUpFrozenSteps);
      expect(await petsNamed(name)).toEqual([run.created]);
    });

    it.each([
      [`its claim on the key (${storeName} ${givesUpFrozenSteps ? 'gives it up, or marks it in flight,' : 'marks it in flight'} once thawed)`, false],
      [`its placing step (${storeName} ${givesUpFrozenSteps ? 'gives it up once thawed: nothing stored' : 'places the order once thawed, the reply lost'})`, true],
    ] as const)('POST /v1/store/orders frozen at %s: one order, and a 201 within the mark’s lifetime', async (_, storedWhileFrozen) => {
      const pet = await staff.createPet({ name: `Ordered ${Date.now()}`, categoryId: 1 });
      // Only the step that places the order carries its placedAt time; the claim, the key.
      const point = (text: string, key: string): boolean => (storedWhileFrozen ? PLACED_AT.test(text) : text.includes(key) && !PLACED_AT.test(text));
      const run = await createThroughFreeze(service.freezer, customer, point, (client, idempotencyKey) =>
        client.placeOrder({ petId: pet.id }, { idempotencyKey }),
      );
      expectRetriedTo201(service.freezer, run, storedWhileFrozen, givesUpFrozenSteps);
      expect(await ordersOfPet(pet.id)).toEqual([run.created]);
      expect((await petsNamed(pet.name))[0]?.status).toBe('pending');
    });
  });
}
