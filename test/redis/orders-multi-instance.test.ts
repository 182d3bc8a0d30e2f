import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, stopAll, type CliProcess } from '../support/cli-process.js';
import { HttpClient, listAll, type HttpResult, type PetBody, outcomes } from '../support/http-client.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';
import { startRedisProxy, type RedisProxy } from '../support/redis-proxy.js';
import { listAllOrders, requestWithHeaders, type OrderBody } from '../support/test-pet-store.js';

const CUSTOMER_1 = 'orders-cust-1';
const CUSTOMER_2 = 'orders-cust-2';
const STAFF = 'orders-staff-1';
const API_KEYS = [
  `${CUSTOMER_1}:enterprise:100000:10000000`,
  `${CUSTOMER_2}:enterprise:100000:10000000`,
  `${STAFF}:enterprise:100000:10000000:staff`,
].join(',');

/** `status code` of an answer. */
const outcomeOf = (result: HttpResult): string => `${result.status} ${(result.body as { code?: string } | undefined)?.code ?? ''}`.trim();

/** Resolves when the matching chunk reaches the proxy, with the function that lets it through: the instance is then mid-request. */
const holdNext = (proxy: RedisProxy, matches: (chunk: string) => boolean): Promise<() => void> =>
  new Promise((held) => proxy.holdNext(matches, held));

describe('orders on two server processes sharing one Redis', () => {
  let redis: TestRedis;
  let proxy: RedisProxy;
  /** A third instance, on the same Redis through `proxy`. */
  let proxied: HttpClient;
  const servers: CliProcess[] = [];
  /** Per instance: a client of each key. */
  const instances: { customer1: HttpClient; customer2: HttpClient; staff: HttpClient }[] = [];

  const startServer = async (redisUrl = redis.url): Promise<string> => {
    const cli = startCli({
      PORT: '0',
      PETSTORE_ENV: 'staging',
      PETSTORE_API_KEYS: API_KEYS,
      REDIS_URL: redisUrl,
      PETSTORE_REDIS_PREFIX: redis.prefix,
    });
    servers.push(cli);
    const [, url = ''] = await cli.waitFor(/listening on (\S+)/);
    return url;
  };

  beforeAll(async () => {
    redis = await acquireTestRedis();
    for (const url of [await startServer(), await startServer()]) {
      instances.push({ customer1: new HttpClient(url, CUSTOMER_1), customer2: new HttpClient(url, CUSTOMER_2), staff: new HttpClient(url, STAFF) });
    }
    proxy = await startRedisProxy(redis.url);
    proxied = new HttpClient(await startServer(proxy.url), CUSTOMER_1);
  });
  afterAll(async () => {
    await stopAll(servers);
    await proxy?.close();
    await redis?.cleanup();
  });

  const firstInstance = () => instances[0]!;
  const secondInstance = () => instances[1]!;

  async function newPet(name: string): Promise<PetBody> {
    const created = await firstInstance().customer1.post('/pets', { json: { name, categoryId: 1 } });
    expect(created.status, created.text).toBe(201);
    return created.body as PetBody;
  }

  /**
   * Sends the first request through the proxied instance, holds it at the command `matches`
   * picks (mid-request), sends the repeat to the second instance meanwhile, then lets the first go.
   */
  async function repeatWhileHeld(
    send: (client: HttpClient) => Promise<HttpResult>,
    matches: (chunk: string) => boolean,
  ): Promise<{ firstAnswer: Promise<HttpResult>; repeat: HttpResult }> {
    const held = holdNext(proxy, matches);
    const firstAnswer = send(proxied);
    const release = await held;
    try {
      return { firstAnswer, repeat: await send(secondInstance().customer1) };
    } finally {
      release();
    }
  }

  const ordersOfPet = async (client: HttpClient, petId: number): Promise<OrderBody[]> =>
    (await listAllOrders(client, '?limit=100')).orders.filter((order) => order.petId === petId);

  it('gives exactly one 201 to 40 concurrent orders for one pet split over both instances; the other 39 are 409 pet_unavailable', async () => {
    const pet = await newPet('Contested over two');
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const instance = instances[i % 2]!;
        return (i % 4 < 2 ? instance.customer1 : instance.customer2).post('/store/orders', { json: { petId: pet.id } });
      }),
    );
    expect(outcomes(results)).toEqual({ '201': 1, '409 pet_unavailable': 39 });
    const winner = results.find((result) => result.status === 201)?.body as OrderBody;
    for (const instance of instances) {
      expect(await ordersOfPet(instance.staff, pet.id)).toEqual([winner]);
      expect(((await instance.customer1.get(`/pets/${pet.id}`)).body as PetBody).status).toBe('pending');
    }
  });

  it('gives exactly one 201 per pet when 5 pets are each ordered 40 times at once over both instances', async () => {
    const pets = await Promise.all(Array.from({ length: 5 }, (_, i) => newPet(`Contested ${i}`)));
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => instances[i % 2]!.customer1.post('/store/orders', { json: { petId: pets[Math.floor(i / 2) % 5]!.id } })),
    );
    expect(outcomes(results)).toEqual({ '201': 5, '409 pet_unavailable': 195 });
    for (const pet of pets) expect(await ordersOfPet(secondInstance().staff, pet.id)).toHaveLength(1);
  });

  it("serves each instance's orders on the other: read, listed, approved, delivered and counted in the inventory alike", async () => {
    const pet = await newPet('Travelling');
    const placed = await firstInstance().customer2.post('/store/orders', { json: { petId: pet.id } });
    expect(placed.status).toBe(201);
    const order = placed.body as OrderBody;
    expect((await secondInstance().customer2.get(`/store/orders/${order.id}`)).body).toEqual(order);
    expect((await listAllOrders(secondInstance().customer2)).orders).toContainEqual(order);
    expect((await secondInstance().customer1.get(`/store/orders/${order.id}`)).status, "another customer's order is not found").toBe(404);

    expect((await secondInstance().staff.request('PATCH', `/store/orders/${order.id}`, { json: { status: 'approved' } })).status).toBe(200);
    expect((await firstInstance().staff.request('PATCH', `/store/orders/${order.id}`, { json: { status: 'delivered' } })).status).toBe(200);
    expect((await secondInstance().customer2.request('DELETE', `/store/orders/${order.id}`)).status).toBe(409);
    expect(((await secondInstance().customer1.get(`/pets/${pet.id}`)).body as PetBody).status).toBe('sold');

    const inventories = await Promise.all(instances.map((instance) => instance.customer1.get('/store/inventory')));
    expect(inventories[0]?.body).toEqual(inventories[1]?.body);
    const counts: Record<string, number> = { available: 0, pending: 0, sold: 0 };
    for (const listed of (await listAll(firstInstance().customer1, '?limit=100')).pets) counts[listed.status] = (counts[listed.status] ?? 0) + 1;
    expect(inventories[0]?.body).toEqual(counts);
  });

  it('shares Idempotency-Key records between instances: 20 concurrent repeats split over both create one pet, and either instance replays it', async () => {
    const name = `Shared key ${Date.now()}`;
    const body = JSON.stringify({ name, categoryId: 2 });
    const send = (i: number): Promise<HttpResult> =>
      requestWithHeaders(instances[i % 2]!.customer1, 'POST', '/pets', { key: CUSTOMER_1, raw: body, headers: { 'idempotency-key': 'shared-over-two' } });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => send(i)));
    const created = results.filter((result) => result.status === 201);
    const original = created.filter((result) => result.headers.get('idempotent-replayed') === null);
    expect(original).toHaveLength(1);
    expect(created.length + (outcomes(results)['409 idempotency_conflict'] ?? 0), JSON.stringify(outcomes(results))).toBe(20);
    for (const replay of created) expect(replay.text).toBe(original[0]?.text);

    for (const i of [0, 1]) {
      const again = await send(i);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(original[0]?.text);
    }
    const named = (await listAll(secondInstance().customer1, '?limit=100')).pets.filter((pet) => pet.name === name);
    expect(named).toEqual([original[0]?.body]);
  });

  it('shares Idempotency-Key records of orders: a repeat on the other instance replays the order, and another body is 422 there', async () => {
    const pet = await newPet('Ordered once over two');
    const other = await newPet('Not ordered');
    const post = (instance: number, petId: number): Promise<HttpResult> =>
      requestWithHeaders(instances[instance]!.customer1, 'POST', '/store/orders', {
        key: CUSTOMER_1,
        raw: JSON.stringify({ petId }),
        headers: { 'idempotency-key': 'order-over-two' },
      });
    const placed = await post(0, pet.id);
    expect(placed.status).toBe(201);
    const replay = await post(1, pet.id);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(placed.text);
    const reused = await post(1, other.id);
    expect(reused.status).toBe(422);
    expect((reused.body as { code: string }).code).toBe('idempotency_key_reused');
    expect(await ordersOfPet(firstInstance().staff, pet.id)).toEqual([placed.body]);
    expect(await ordersOfPet(firstInstance().staff, other.id)).toEqual([]);
  });

  it('answers 409 idempotency_conflict to a repeat on another instance while the first request is still in flight, then replays the first 201', async () => {
    const name = `In flight ${Date.now()}`;
    const body = JSON.stringify({ name, categoryId: 3 });
    const send = (client: HttpClient): Promise<HttpResult> =>
      requestWithHeaders(client, 'POST', '/pets', { key: CUSTOMER_1, raw: body, headers: { 'idempotency-key': 'in-flight-key' } });
    // Only the command that stores the pet carries its name: the first request has claimed the key and not stored yet.
    const { firstAnswer, repeat } = await repeatWhileHeld(send, (chunk) => chunk.includes(name));
    expect(outcomeOf(repeat)).toBe('409 idempotency_conflict');
    const first = await firstAnswer;
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const replay = await send(secondInstance().customer1);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect((await listAll(firstInstance().customer1, '?limit=100')).pets.filter((pet) => pet.name === name)).toEqual([first.body]);
  });

  it('answers 409 idempotency_conflict to a repeat of an order in flight on another instance, and places the order once', async () => {
    const pet = await newPet('Order in flight');
    const body = JSON.stringify({ petId: pet.id });
    const send = (client: HttpClient): Promise<HttpResult> =>
      requestWithHeaders(client, 'POST', '/store/orders', { key: CUSTOMER_1, raw: body, headers: { 'idempotency-key': 'order-in-flight-key' } });
    // Only the command that places the order carries its placedAt time.
    const { firstAnswer, repeat } = await repeatWhileHeld(send, (chunk) => chunk.includes('order-in-flight-key') && /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/.test(chunk));
    expect(outcomeOf(repeat)).toBe('409 idempotency_conflict');
    const first = await firstAnswer;
    expect(first.status, first.text).toBe(201);
    const replay = await send(secondInstance().customer1);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await ordersOfPet(secondInstance().staff, pet.id)).toEqual([first.body]);
  });
});
