import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { HttpClient, listAll, type HttpResult, type PetBody } from '../support/http-client.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';
import { startRedisProxy, type RedisProxy } from '../support/redis-proxy.js';
import { listAllOrders, requestWithHeaders, type OrderBody } from '../support/test-pet-store.js';

const CUSTOMER = 'idem-outage-cust-1';
const STAFF = 'idem-outage-staff-1';
const API_KEYS = `${CUSTOMER}:enterprise:100000:10000000,${STAFF}:enterprise:100000:10000000:staff`;

/** An order's placedAt time: only the command that places the order carries one. */
const PLACED_AT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

/**
 * Freezes Redis (SIGSTOP) when a chosen command reaches the proxy, before forwarding it: the
 * command then waits, unprocessed, in Redis's socket buffer, so the service times out on a
 * command Redis runs only after SIGCONT, as when a reply is lost.
 */
const freezeOn = (proxy: RedisProxy, redis: RedisServerProcess, matches: (chunk: string) => boolean): { fired(): boolean } => {
  let fired = false;
  proxy.holdNext(matches, (release) => {
    process.kill(redis.pid, 'SIGSTOP');
    fired = true;
    release();
  });
  return { fired: () => fired };
};

/** `status code` of an answer, for messages. */
const outcomeOf = (result: HttpResult): string => `${result.status} ${(result.body as { code?: string } | undefined)?.code ?? ''}`.trim();

describe('Idempotency-Key through a Redis that freezes', () => {
  let redis: RedisServerProcess;
  let proxy: RedisProxy;
  let server: CliProcess;
  let customer: HttpClient;
  let staff: HttpClient;
  let frozen = false;

  const freeze = (): void => {
    process.kill(redis.pid, 'SIGSTOP');
    frozen = true;
  };
  const thaw = (): void => {
    if (frozen) process.kill(redis.pid, 'SIGCONT');
    frozen = false;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startRedisProxy(redis.url);
    server = startCli({ PORT: '0', PETSTORE_ENV: 'production', PETSTORE_API_KEYS: API_KEYS, REDIS_URL: proxy.url });
    const [, baseUrl = ''] = await server.waitFor(/listening on (\S+)/);
    customer = new HttpClient(baseUrl, CUSTOMER);
    staff = new HttpClient(baseUrl, STAFF);
  });
  afterAll(async () => {
    thaw();
    server?.kill();
    await server?.exited();
    await proxy?.close();
    await redis?.stop();
  });

  const postWithKey = (path: '/pets' | '/store/orders', body: string, key: string): Promise<HttpResult> =>
    requestWithHeaders(customer, 'POST', path, { key: CUSTOMER, raw: body, headers: { 'idempotency-key': key } });

  /**
   * Sends `request` again while it answers 503 (Redis coming back) or 409 idempotency_conflict
   * (the first is "still in flight"), as a client would, for at most 10 s; returns the first other
   * answer, or the last one at the deadline.
   */
  async function retryUntilSettled(request: () => Promise<HttpResult>): Promise<HttpResult> {
    const deadline = Date.now() + 10_000;
    for (let attempt = 0; attempt < 400; attempt++) {
      const result = await request();
      const transient = result.status === 503 || outcomeOf(result) === '409 idempotency_conflict';
      if (!transient || Date.now() > deadline) return result;
      // The service reconnects by itself; nothing announces it, so the retry waits like a client would.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('no settled answer after 400 attempts');
  }

  /** Sends `request` while Redis is frozen: it must answer 503 service_unavailable within a second. */
  async function expectUnavailable(request: () => Promise<HttpResult>): Promise<void> {
    const started = performance.now();
    const result = await request();
    expect(outcomeOf(result)).toBe('503 service_unavailable');
    expect(result.headers.get('retry-after')).not.toBeNull();
    expect(performance.now() - started).toBeLessThan(1_500);
  }

  /**
   * Sends the POST with Redis frozen on the first command `matches` picks (its reply then lost),
   * expects the 503, checks the freeze happened at `what`, and lets Redis go.
   */
  async function postFrozenAt(path: '/pets' | '/store/orders', body: string, key: string, what: string, matches: (chunk: string) => boolean): Promise<void> {
    const at = freezeOn(proxy, redis, matches);
    try {
      await expectUnavailable(() => postWithKey(path, body, key));
      expect(at.fired(), `Redis froze as ${what} arrived`).toBe(true);
    } finally {
      proxy.disarm();
      frozen = at.fired();
      thaw();
    }
  }

  const petsNamed = async (name: string): Promise<PetBody[]> => (await listAll(customer, '?limit=100')).pets.filter((pet) => pet.name === name);
  const ordersOfPet = async (petId: number): Promise<OrderBody[]> =>
    (await listAllOrders(staff, '?limit=100')).orders.filter((order) => order.petId === petId);

  async function newPet(name: string): Promise<PetBody> {
    const created = await retryUntilSettled(() => customer.post('/pets', { json: { name, categoryId: 1 } }));
    expect(created.status, created.text).toBe(201);
    return created.body as PetBody;
  }

  /**
   * After the outage: the retry with the same key is a 201 that describes the one pet stored
   * (a replay of what the frozen request stored, or the first creation if it stored nothing).
   */
  async function expectExactlyOnePet(name: string, body: string, key: string, storedWhileFrozen?: boolean): Promise<void> {
    const retried = await retryUntilSettled(() => postWithKey('/pets', body, key));
    expect(outcomeOf(retried), retried.text).toBe('201');
    if (storedWhileFrozen !== undefined) expect(retried.headers.get('idempotent-replayed')).toBe(storedWhileFrozen ? 'true' : null);
    const named = await petsNamed(name);
    expect(named).toHaveLength(1);
    expect(retried.body).toEqual(named[0]);
    expect(retried.headers.get('location')).toBe(`/v1/pets/${named[0]?.id}`);
    const again = await postWithKey('/pets', body, key);
    expect(outcomeOf(again)).toBe('201');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(retried.text);
    expect(await petsNamed(name)).toHaveLength(1);
  }

  async function expectExactlyOneOrder(petId: number, body: string, key: string, storedWhileFrozen?: boolean): Promise<void> {
    const retried = await retryUntilSettled(() => postWithKey('/store/orders', body, key));
    expect(outcomeOf(retried), retried.text).toBe('201');
    if (storedWhileFrozen !== undefined) expect(retried.headers.get('idempotent-replayed')).toBe(storedWhileFrozen ? 'true' : null);
    const orders = await ordersOfPet(petId);
    expect(orders).toHaveLength(1);
    expect(retried.body).toEqual(orders[0]);
    expect(retried.headers.get('location')).toBe(`/v1/store/orders/${orders[0]?.id}`);
    expect(((await customer.get(`/pets/${petId}`)).body as PetBody).status).toBe('pending');
    const again = await postWithKey('/store/orders', body, key);
    expect(outcomeOf(again)).toBe('201');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(retried.text);
    expect(await ordersOfPet(petId)).toHaveLength(1);
  }

  it('POST /v1/pets sent while Redis is frozen answers 503; after SIGCONT a retry with the same key gives the one pet there is', async () => {
    const name = `Frozen pet ${Date.now()}`;
    const body = JSON.stringify({ name, categoryId: 1 });
    await newPet('warm-up');
    freeze();
    try {
      await expectUnavailable(() => postWithKey('/pets', body, 'frozen-pet-key'));
    } finally {
      thaw();
    }
    await expectExactlyOnePet(name, body, 'frozen-pet-key');
  });

  it('POST /v1/pets whose creating command Redis runs only after SIGCONT (its reply lost) answers 503; the retry replays the pet it stored', async () => {
    const name = `Lost reply pet ${Date.now()}`;
    const body = JSON.stringify({ name, categoryId: 1 });
    await newPet('warm-up');
    // Only the command that stores the pet carries its name.
    await postFrozenAt('/pets', body, 'lost-reply-pet-key', 'the creating command', (chunk) => chunk.includes(name));
    await expectExactlyOnePet(name, body, 'lost-reply-pet-key', true);
  });

  it('POST /v1/store/orders sent while Redis is frozen answers 503; after SIGCONT a retry with the same key gives the one order there is', async () => {
    const pet = await newPet('Frozen order pet');
    const body = JSON.stringify({ petId: pet.id });
    freeze();
    try {
      await expectUnavailable(() => postWithKey('/store/orders', body, 'frozen-order-key'));
    } finally {
      thaw();
    }
    await expectExactlyOneOrder(pet.id, body, 'frozen-order-key');
  });

  it('POST /v1/store/orders whose placing command Redis runs only after SIGCONT (its reply lost) answers 503; the retry replays the order it placed', async () => {
    const pet = await newPet('Lost reply order pet');
    const body = JSON.stringify({ petId: pet.id });
    // Only the command that places the order carries its placedAt time.
    await postFrozenAt('/store/orders', body, 'lost-reply-order-key', 'the placing command', (chunk) => PLACED_AT.test(chunk) && chunk.includes('lost-reply-order-key'));
    await expectExactlyOneOrder(pet.id, body, 'lost-reply-order-key', true);
  });

  it('POST /v1/pets whose claim on the key Redis runs only after SIGCONT answers 503; a retry with the same key is not held off as in flight: it creates the one pet', async () => {
    const name = `Frozen claim pet ${Date.now()}`;
    const body = JSON.stringify({ name, categoryId: 1 });
    await newPet('warm-up');
    // The claim names the key but not the pet; the command that stores the pet names both.
    await postFrozenAt('/pets', body, 'frozen-claim-pet-key', 'the claim', (chunk) => chunk.includes('frozen-claim-pet-key') && !chunk.includes(name));
    await expectExactlyOnePet(name, body, 'frozen-claim-pet-key', false);
  });

  it('POST /v1/store/orders whose claim on the key Redis runs only after SIGCONT answers 503; a retry with the same key is not held off as in flight: it places the one order', async () => {
    const pet = await newPet('Frozen claim order pet');
    const body = JSON.stringify({ petId: pet.id });
    await postFrozenAt('/store/orders', body, 'frozen-claim-order-key', 'the claim', (chunk) => chunk.includes('frozen-claim-order-key') && !PLACED_AT.test(chunk));
    await expectExactlyOneOrder(pet.id, body, 'frozen-claim-order-key', false);
  });
});
