import { afterEach, describe, expect, it } from 'vitest';
import { PetStoreClient, type RetryOptions } from '../../src/client.js';
import { freePort } from '../support/test-redis.js';
import { errorJson, startScriptedServer, type ScriptedAnswer, type ScriptedServer } from './scripted-server.js';
import { rejection } from './rejection.js';

const PET = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A scripted server answering with `answers` in turn (the last one again once they run out). */
async function serve(...answers: readonly ScriptedAnswer[]): Promise<ScriptedServer> {
  server = await startScriptedServer((_, index) => answers[Math.min(index, answers.length - 1)] ?? 'destroy');
  return server;
}

/** Retry options whose waits are recorded and skipped, jittered by `randoms` in turn. */
function recorded(options: RetryOptions = {}, randoms: readonly number[] = [0.5]): { retry: RetryOptions; waits: number[] } {
  const waits: number[] = [];
  let draw = 0;
  return {
    waits,
    retry: {
      ...options,
      random: () => randoms[draw++ % randoms.length] ?? 0,
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
  };
}

const clientOf = (baseUrl: string, retry?: RetryOptions): PetStoreClient => new PetStoreClient({ baseUrl, apiKey: 'k-1', ...(retry === undefined ? {} : { retry }) });

describe('PetStoreClient retries', () => {
  it('waits out Retry-After: 1 twice (real time), sends one Idempotency-Key three times and resolves with the created pet', async () => {
    const rateLimited = { ...errorJson(429, 'rate_limited'), headers: { 'retry-after': '1' } };
    const { requests, answeredAt, baseUrl } = await serve(rateLimited, rateLimited, { status: 201, json: PET, headers: { location: '/v1/pets/7' } });

    await expect(clientOf(baseUrl).createPet({ name: 'Rex', categoryId: 1 })).resolves.toEqual(PET);

    expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual(Array(3).fill('POST /v1/pets'));
    const keys = requests.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(requests.map((request) => JSON.parse(request.body) as unknown)).toEqual(Array(3).fill({ name: 'Rex', categoryId: 1 }));
    for (const retry of [1, 2]) {
      const waited = (requests[retry]?.receivedAt ?? 0) - (answeredAt[retry - 1] ?? Infinity);
      expect(waited, `wait before retry ${retry}`).toBeGreaterThanOrEqual(1000);
    }
  });

  it('retries a 409 idempotency_conflict (an earlier attempt whose fate is not yet known) after its Retry-After, with the same Idempotency-Key, and resolves with the order', async () => {
    const order = { id: 3, petId: 1, ownerId: 'o', status: 'placed', placedAt: '2026-01-01T00:00:00.000Z' };
    const { requests, baseUrl } = await serve(
      { ...errorJson(503, 'service_unavailable'), headers: { 'retry-after': '1' } },
      { ...errorJson(409, 'idempotency_conflict'), headers: { 'retry-after': '3' } },
      { status: 201, json: order, headers: { location: '/v1/store/orders/3' } },
    );
    const { retry, waits } = recorded();

    await expect(clientOf(baseUrl, retry).placeOrder({ petId: 1 })).resolves.toEqual(order);

    expect(waits).toEqual([1000, 3000]);
    const keys = requests.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
  });

  it('retries a 503 without Retry-After after growing, jittered delays: random * min(maxDelayMs, baseDelayMs * 2^(n-1))', async () => {
    const unavailable = errorJson(503, 'service_unavailable');
    const inventory = { available: 1, pending: 0, sold: 0 };
    const { requests, baseUrl } = await serve(unavailable, unavailable, unavailable, unavailable, { status: 200, json: inventory });
    const { retry, waits } = recorded({ maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 500 }, [0.9, 0.3, 0.99, 0.5]);

    await expect(clientOf(baseUrl, retry).inventory()).resolves.toEqual(inventory);

    expect(requests).toHaveLength(5);
    // Ceilings 100, 200, 400, then capped at 500; each wait is its draw's share of its ceiling.
    expect(waits).toEqual([90, 60, 396, 250]);
  });

  it('draws a new jitter for every wait, under a ceiling that doubles', async () => {
    const { baseUrl } = await serve(errorJson(503, 'service_unavailable'));
    const { retry, waits } = recorded({ maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 60_000, maxWaitMs: Infinity }, [0.999, 0.999, 0.999, 0.999, 0.999]);

    const error = await rejection(clientOf(baseUrl, retry).getOrder(1));

    expect(error).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(waits).toEqual([999, 1998, 3996, 7992, 15984]);
  });

  it('never retries a ban (429 api_key_banned), whatever its Retry-After', async () => {
    const { requests, baseUrl } = await serve({ ...errorJson(429, 'api_key_banned', 'banned for 900 s'), headers: { 'retry-after': '900' } });
    const { retry, waits } = recorded();

    const error = await rejection(clientOf(baseUrl, retry).listPets());

    expect(error).toMatchObject({ status: 429, code: 'api_key_banned', message: 'banned for 900 s', retryAfterMs: 900_000 });
    expect(requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it.each([
    [400, 'invalid_request'],
    [401, 'unauthorized'],
    // Spent credits come back at a refill days away, or a top-up: no retry within a call helps.
    [402, 'credits_exhausted'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [409, 'pet_unavailable'],
    [422, 'idempotency_key_reused'],
    [500, 'internal_error'],
  ])('never retries a %i %s', async (status, code) => {
    const { requests, baseUrl } = await serve(errorJson(status, code));
    const { retry, waits } = recorded();

    const error = await rejection(clientOf(baseUrl, retry).placeOrder({ petId: 1 }));

    expect(error).toMatchObject({ status, code });
    expect(requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('throws the last error once maxAttempts are spent', async () => {
    server = await startScriptedServer((_, index) => errorJson(503, 'service_unavailable', `attempt ${index + 1}`));
    const { retry, waits } = recorded({ maxAttempts: 3 });

    const error = await rejection(clientOf(server.baseUrl, retry).listOrders());

    expect(error).toMatchObject({ status: 503, code: 'service_unavailable', message: 'attempt 3' });
    expect(server.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it('throws the last error instead of starting a wait that would pass maxWaitMs', async () => {
    server = await startScriptedServer((_, index) => ({ ...errorJson(429, 'rate_limited', `attempt ${index + 1}`), headers: { 'retry-after': '2' } }));
    const { retry, waits } = recorded({ maxAttempts: 10, maxWaitMs: 5000 });

    const error = await rejection(clientOf(server.baseUrl, retry).getPet(1));

    expect(error).toMatchObject({ status: 429, code: 'rate_limited', message: 'attempt 3', retryAfterMs: 2000 });
    expect(waits).toEqual([2000, 2000]);
    expect(server.requests).toHaveLength(3);
  });

  it('by default gives up at once on a Retry-After longer than 30 s: retrying sooner would only earn strikes', async () => {
    const { requests, baseUrl } = await serve({ ...errorJson(429, 'rate_limited'), headers: { 'retry-after': '60' } });
    const { retry, waits } = recorded({});

    const error = await rejection(clientOf(baseUrl, retry).listPets());

    expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: 60_000 });
    expect(requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('retries a dropped connection with the same Idempotency-Key', async () => {
    const { requests, baseUrl } = await serve('destroy', { status: 201, json: PET });
    const { retry, waits } = recorded();

    await expect(clientOf(baseUrl, retry).createPet({ name: 'Rex', categoryId: 1 })).resolves.toEqual(PET);

    expect(requests).toHaveLength(2);
    expect(requests[0]?.headers['idempotency-key']).toMatch(UUID);
    expect(requests[1]?.headers['idempotency-key']).toBe(requests[0]?.headers['idempotency-key']);
    expect(waits).toHaveLength(1);
  });

  it('retries a refused connection, then throws a network_error with the cause', async () => {
    const port = await freePort();
    const { retry, waits } = recorded({ maxAttempts: 3 });

    const error = await rejection(clientOf(`http://127.0.0.1:${port}/v1`, retry).inventory());

    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(error.message).toContain(`GET http://127.0.0.1:${port}/v1/store/inventory`);
    expect(error.cause).toBeInstanceOf(Error);
    expect(waits).toHaveLength(2);
  });

  it('gives each call its own Idempotency-Key, or the one the caller passes', async () => {
    const order = { id: 1, petId: 1, status: 'placed', placedAt: '2026-11-23T00:00:00.000Z' };
    server = await startScriptedServer((request) => (request.method === 'POST' ? { status: 201, json: order } : { status: 200, json: [order] }));
    const { requests, baseUrl } = server;
    const client = clientOf(baseUrl);

    await client.placeOrder({ petId: 1 });
    await client.placeOrder({ petId: 1 });
    await client.placeOrder({ petId: 1 }, { idempotencyKey: 'order-rex-1' });
    await client.listOrders();

    const keys = requests.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toMatch(UUID);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys.slice(2)).toEqual(['order-rex-1', undefined]);
  });

  it('stops waiting when the signal aborts, rejecting with its reason', async () => {
    const { requests, baseUrl } = await serve({ ...errorJson(429, 'rate_limited'), headers: { 'retry-after': '20' } });
    const controller = new AbortController();
    const reason = new Error('user gave up');

    const call = clientOf(baseUrl).listPets({}, { signal: controller.signal });
    while (requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);

    await expect(call).rejects.toBe(reason);
    expect(requests).toHaveLength(1);
  });

  it('reports an answer that is not the API Error format as invalid_response, with its status', async () => {
    const { baseUrl } = await serve({ status: 502, json: '<html>Bad Gateway</html>' });

    const error = await rejection(clientOf(baseUrl, recorded().retry).inventory());

    expect(error).toMatchObject({ status: 502, code: 'invalid_response' });
  });
});
