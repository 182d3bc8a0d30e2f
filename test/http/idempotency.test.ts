import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, listAll, type HttpResult, type PetBody } from '../support/http-client.js';
import { ManualClock } from '../support/manual-clock.js';
import {
  KEYS,
  listAllOrders,
  requestWithHeaders,
  startTestPetStore,
  type HeaderRequestOptions,
  type OrderBody,
  type TestPetStore,
} from '../support/test-pet-store.js';

let store: TestPetStore;

beforeAll(async () => {
  store = await startTestPetStore();
});

afterAll(() => store.close());

let keys = 0;
/** An Idempotency-Key no other test uses. */
const freshKey = (): string => `idem-${Date.now()}-${keys++}`;

/** A POST with a raw body (sent byte for byte) and, unless undefined, an Idempotency-Key. */
function post(path: '/pets' | '/store/orders', body: string, idempotencyKey: string | undefined, key: string = KEYS.enterprise, options: HeaderRequestOptions = {}): Promise<HttpResult> {
  return requestWithHeaders(store.client, 'POST', path, {
    raw: body,
    key,
    ...options,
    headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
  });
}

const petBody = (name: string, categoryId = 1): string => JSON.stringify({ name, categoryId });
const orderBody = (petId: number): string => JSON.stringify({ petId });

const everyPet = async (): Promise<PetBody[]> => (await listAll(store.client, '?limit=100')).pets;
const everyOrder = async (): Promise<OrderBody[]> => (await listAllOrders(store.staff, '?limit=100')).orders;

async function newPet(name = 'Idem pet'): Promise<PetBody> {
  const created = await store.client.post('/pets', { json: { name, categoryId: 1 } });
  expect(created.status, created.text).toBe(201);
  return created.body as PetBody;
}

async function petStatus(petId: number): Promise<string> {
  return ((await store.client.get(`/pets/${petId}`)).body as PetBody).status;
}

/** The first answer to a key: a plain 201, not marked as a replay. */
function expectCreated(result: HttpResult): void {
  expect(result.status, result.text).toBe(201);
  expect(result.headers.get('idempotent-replayed')).toBeNull();
}

/** A replay of `first`: the same status, body bytes and Location, marked Idempotent-Replayed: true. */
function expectReplayOf(result: HttpResult, first: HttpResult): void {
  expect(result.status, result.text).toBe(201);
  expect(result.text).toBe(first.text);
  expect(result.body).toEqual(first.body);
  expect(result.headers.get('location')).toBe(first.headers.get('location'));
  expect(result.headers.get('idempotent-replayed')).toBe('true');
}

describe('Idempotency-Key on POST /v1/pets', () => {
  it('replays the first 201 for the same key and byte-identical body: same status, body and Location, Idempotent-Replayed: true, and stores nothing', async () => {
    const key = freshKey();
    const body = petBody('Once');
    const first = await post('/pets', body, key);
    expectCreated(first);
    const pets = await everyPet();
    expect(pets).toContainEqual(first.body);
    expect(first.headers.get('location')).toBe(`/v1/pets/${(first.body as PetBody).id}`);

    for (let i = 0; i < 3; i++) expectReplayOf(await post('/pets', body, key), first);
    expect(await everyPet(), 'a replay stores nothing').toEqual(pets);
  });

  it.each([
    ['another name', petBody('Twice')],
    ['the same JSON spelled with other whitespace', '{ "name": "Once", "categoryId": 1 }'],
    ['the same fields in another order', '{"categoryId":1,"name":"Once"}'],
    ['an invalid body', petBody('')],
  ])('answers 422 idempotency_key_reused for the same key with %s, stores nothing, and still replays the first', async (_name, other) => {
    const key = freshKey();
    const body = petBody('Once');
    const first = await post('/pets', body, key);
    expectCreated(first);
    const pets = await everyPet();
    expectError(await post('/pets', other, key), 422, 'idempotency_key_reused');
    expect(await everyPet()).toEqual(pets);
    expectReplayOf(await post('/pets', body, key), first);
  });

  it.each([
    ['empty', ''],
    ['of 256 characters', 'k'.repeat(256)],
    ['with a space', 'a b'],
    ['with a tab', 'a\tb'],
    ['with a non-ASCII character', 'cl\u00e9'],
  ])('refuses an Idempotency-Key %s with 400, and stores nothing', async (_name, key) => {
    const pets = await everyPet();
    expectError(await post('/pets', petBody('Bad key'), key), 400, 'invalid_request', 'Idempotency-Key');
    expect(await everyPet()).toEqual(pets);
  });

  it('accepts a key of 255 characters, and one of every visible ASCII character, and replays them', async () => {
    for (const key of ['k'.repeat(255), Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('')]) {
      const first = await post('/pets', petBody('Long key'), key);
      expectCreated(first);
      const pets = await everyPet();
      expectReplayOf(await post('/pets', petBody('Long key'), key), first);
      expect(await everyPet()).toEqual(pets);
    }
  });

  it('scopes keys to the API key: another API key with the same Idempotency-Key and body creates its own pet', async () => {
    const key = freshKey();
    const body = petBody('Scoped');
    const mine = await post('/pets', body, key, KEYS.enterprise);
    const theirs = await post('/pets', body, key, KEYS.customer2);
    expectCreated(mine);
    expectCreated(theirs);
    expect((theirs.body as PetBody).id).not.toBe((mine.body as PetBody).id);
    expectReplayOf(await post('/pets', body, key, KEYS.enterprise), mine);
    expectReplayOf(await post('/pets', body, key, KEYS.customer2), theirs);
  });

  it('does not remember a failed request: after a 400 (bad body) or a 415, the fixed request with the same key creates', async () => {
    const key = freshKey();
    const pets = await everyPet();
    expectError(await post('/pets', petBody('Fixed', 0), key), 400, 'invalid_request', 'categoryId');
    expectError(await post('/pets', petBody('Fixed'), key, KEYS.enterprise, { contentType: 'text/plain' }), 415, 'unsupported_media_type');
    expect(await everyPet()).toEqual(pets);
    const fixed = await post('/pets', petBody('Fixed'), key);
    expectCreated(fixed);
    expect(await everyPet()).toEqual([...pets, fixed.body]);
    expectReplayOf(await post('/pets', petBody('Fixed'), key), fixed);
  });

  it('creates two pets for two identical POSTs without the header', async () => {
    const pets = await everyPet();
    const first = await post('/pets', petBody('Twin'), undefined);
    const second = await post('/pets', petBody('Twin'), undefined);
    expectCreated(first);
    expectCreated(second);
    expect((second.body as PetBody).id).not.toBe((first.body as PetBody).id);
    expect(await everyPet()).toEqual([...pets, first.body, second.body]);
  });

  it('counts replays and refusals against the quota like any request', async () => {
    const key = freshKey();
    const remaining = (result: HttpResult): number => Number(result.headers.get('x-ratelimit-remaining'));
    const first = await post('/pets', petBody('Counted'), key, KEYS.pro);
    expectCreated(first);
    const replay = await post('/pets', petBody('Counted'), key, KEYS.pro);
    expectReplayOf(replay, first);
    expect(remaining(replay)).toBe(remaining(first) - 1);
    const reused = await post('/pets', petBody('Other'), key, KEYS.pro);
    expectError(reused, 422, 'idempotency_key_reused');
    expect(remaining(reused)).toBe(remaining(first) - 2);
    const badKey = await post('/pets', petBody('Counted'), 'a b', KEYS.pro);
    expectError(badKey, 400, 'invalid_request');
    expect(remaining(badKey)).toBe(remaining(first) - 3);
  });
});

describe('Idempotency-Key on POST /v1/store/orders', () => {
  it('replays the first 201 for the same key and byte-identical body: same status, body and Location, Idempotent-Replayed: true, and stores nothing', async () => {
    const pet = await newPet();
    const key = freshKey();
    const first = await post('/store/orders', orderBody(pet.id), key);
    expectCreated(first);
    const order = first.body as OrderBody;
    expect(first.headers.get('location')).toBe(`/v1/store/orders/${order.id}`);
    const orders = await everyOrder();
    expect(orders).toContainEqual(order);

    // The pet is pending now, so a new run would be a 409: a replay answers the first 201.
    for (let i = 0; i < 3; i++) expectReplayOf(await post('/store/orders', orderBody(pet.id), key), first);
    expect(await everyOrder(), 'a replay stores nothing').toEqual(orders);
    expect(await petStatus(pet.id)).toBe('pending');
  });

  it('replays the first 201 as it was, even after the order was cancelled, and changes nothing', async () => {
    const pet = await newPet();
    const key = freshKey();
    const first = await post('/store/orders', orderBody(pet.id), key);
    expectCreated(first);
    const cancelled = await store.client.request('DELETE', `/store/orders/${(first.body as OrderBody).id}`);
    expect(cancelled.status).toBe(200);
    const orders = await everyOrder();
    expectReplayOf(await post('/store/orders', orderBody(pet.id), key), first);
    expect(await everyOrder()).toEqual(orders);
    expect(await petStatus(pet.id), 'the replay did not order the pet again').toBe('available');
  });

  it('answers 422 idempotency_key_reused for the same key with another body, and stores nothing', async () => {
    const pet = await newPet();
    const other = await newPet();
    const key = freshKey();
    const first = await post('/store/orders', orderBody(pet.id), key);
    expectCreated(first);
    const orders = await everyOrder();
    expectError(await post('/store/orders', orderBody(other.id), key), 422, 'idempotency_key_reused');
    expectError(await post('/store/orders', `{ "petId": ${pet.id} }`, key), 422, 'idempotency_key_reused');
    expect(await everyOrder()).toEqual(orders);
    expect(await petStatus(other.id)).toBe('available');
    expectReplayOf(await post('/store/orders', orderBody(pet.id), key), first);
  });

  it.each([
    ['empty', ''],
    ['of 256 characters', 'k'.repeat(256)],
    ['with a space', 'a b'],
  ])('refuses an Idempotency-Key %s with 400, and stores nothing: no order, the pet still available', async (_name, key) => {
    const pet = await newPet();
    const orders = await everyOrder();
    expectError(await post('/store/orders', orderBody(pet.id), key), 400, 'invalid_request', 'Idempotency-Key');
    expect(await everyOrder()).toEqual(orders);
    expect(await petStatus(pet.id)).toBe('available');
  });

  it('accepts a key of 255 characters', async () => {
    const pet = await newPet();
    const key = `o${'k'.repeat(254)}`;
    const first = await post('/store/orders', orderBody(pet.id), key);
    expectCreated(first);
    expectReplayOf(await post('/store/orders', orderBody(pet.id), key), first);
  });

  it('scopes keys to the API key: another API key with the same Idempotency-Key places its own order', async () => {
    const key = freshKey();
    const [petA, petB] = [await newPet(), await newPet()];
    const mine = await post('/store/orders', orderBody(petA.id), key, KEYS.enterprise);
    const theirs = await post('/store/orders', orderBody(petB.id), key, KEYS.customer2);
    expectCreated(mine);
    expectCreated(theirs);
    expect((theirs.body as OrderBody).id).not.toBe((mine.body as OrderBody).id);
    expectReplayOf(await post('/store/orders', orderBody(petB.id), key, KEYS.customer2), theirs);
  });

  it('does not remember a failed request: after a 409 pet_unavailable the same request with the same key places the order once the pet is available', async () => {
    const pet = await newPet();
    const holder = await store.customer2.post('/store/orders', { json: { petId: pet.id } });
    expect(holder.status).toBe(201);
    const key = freshKey();
    const orders = await everyOrder();
    expectError(await post('/store/orders', orderBody(pet.id), key), 409, 'pet_unavailable');
    expect(await everyOrder()).toEqual(orders);

    expect((await store.customer2.request('DELETE', `/store/orders/${(holder.body as OrderBody).id}`)).status).toBe(200);
    const retried = await post('/store/orders', orderBody(pet.id), key);
    expectCreated(retried);
    expect(retried.body).toMatchObject({ petId: pet.id, status: 'placed' });
    expect(await petStatus(pet.id)).toBe('pending');
    expectReplayOf(await post('/store/orders', orderBody(pet.id), key), retried);
  });

  it('does not remember a failed request: after a 400 or a 404, the fixed body with the same key places the order', async () => {
    const pet = await newPet();
    const key = freshKey();
    const orders = await everyOrder();
    expectError(await post('/store/orders', `{"petId":"${pet.id}"}`, key), 400, 'invalid_request', 'petId');
    expectError(await post('/store/orders', orderBody(9_007_199_254_740_991), key), 404, 'not_found');
    expect(await everyOrder()).toEqual(orders);
    const fixed = await post('/store/orders', orderBody(pet.id), key);
    expectCreated(fixed);
    expect(await everyOrder()).toEqual([...orders, fixed.body]);
  });

  it('places two orders for two identical POSTs without the header (the pet released in between)', async () => {
    const pet = await newPet();
    const first = await post('/store/orders', orderBody(pet.id), undefined);
    expectCreated(first);
    expect((await store.client.request('DELETE', `/store/orders/${(first.body as OrderBody).id}`)).status).toBe(200);
    const second = await post('/store/orders', orderBody(pet.id), undefined);
    expectCreated(second);
    expect((second.body as OrderBody).id).toBeGreaterThan((first.body as OrderBody).id);
  });
});

describe('Idempotency-Key records over time', () => {
  // Aligned to a second, so the quota windows of the manual clock are simple.
  const T0 = 1_800_000_000_000;
  const HOUR = 60 * 60 * 1000;
  const clock = new ManualClock(T0);
  let timed: TestPetStore;

  beforeAll(async () => {
    timed = await startTestPetStore({ clock });
  });
  afterAll(() => timed.close());

  const postTimed = (body: string, key: string): Promise<HttpResult> =>
    requestWithHeaders(timed.client, 'POST', '/pets', { raw: body, key: KEYS.enterprise, headers: { 'idempotency-key': key } });

  it('keeps a record 24 hours: a repeat just before replays, one after creates anew', async () => {
    const first = await postTimed(petBody('Daily'), 'daily-key');
    expectCreated(first);
    clock.advance(24 * HOUR - 1_000);
    expectReplayOf(await postTimed(petBody('Daily'), 'daily-key'), first);
    clock.advance(2_000);
    const later = await postTimed(petBody('Daily'), 'daily-key');
    expectCreated(later);
    expect((later.body as PetBody).id).not.toBe((first.body as PetBody).id);
  });
});
