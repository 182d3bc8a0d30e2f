import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { createHttpServer, type PetStoreHttpServer } from '../../src/adapters/http/http-server.js';
import { RateLimitStatus } from '../../src/adapters/http/pipeline/rate-limit-status.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryConcurrencySlots } from '../../src/adapters/memory/memory-concurrency-slots.js';
import { MemoryCreditLedger } from '../../src/adapters/memory/memory-credit-ledger.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { minuteRule, type Plan } from '../../src/domain/quota/plan.js';
import { keySubject, RequestAdmission } from '../../src/domain/quota/request-admission.js';
import { HttpClient, type HttpResult } from '../support/http-client.js';
import { ManualClock } from '../support/manual-clock.js';
import { memoryServices } from '../support/memory-services.js';
import { requestWithHeaders } from '../support/test-pet-store.js';

const KEY = 'credits-key';
/** 2026-11-30T23:59:00Z: a minute before December's refill. */
const START = Date.UTC(2026, 10, 30, 23, 59);
/** 20 credits a month, creating a pet costs 5, a 404 gets its credit back; 6 requests a minute. */
const METERED: Plan = {
  name: 'metered',
  rules: [minuteRule(6)],
  credits: { name: 'monthly', credits: 20, refill: 'month', cost: { createPet: 5, default: 1 }, refund: ['404'] },
};
const PET = { name: 'Rex', categoryId: 1, status: 'available' };

let clock: ManualClock;
let ledger: MemoryCreditLedger;
let server: PetStoreHttpServer;
let client: HttpClient;

beforeEach(async () => {
  clock = new ManualClock(START);
  const keys = new MemoryApiKeyRegistry();
  await keys.register(digestApiKey(KEY), { plan: METERED, role: 'customer' });
  const quotas = new MemoryQuotaStore(clock);
  const slots = new MemoryConcurrencySlots(clock);
  ledger = new MemoryCreditLedger();
  const options = { anonymousPolicy: { rules: [minuteRule(1_000)] }, ban: { strikes: 1_000, strikeWindowMs: 60_000, banMs: 60_000 } };
  const accounts = { ledger, clock };
  server = createHttpServer(
    {
      ...(await memoryServices({ clock })),
      admission: new RequestAdmission(keys, quotas, options, slots, accounts),
      rateLimitStatus: new RateLimitStatus(keys, quotas, options, slots, accounts),
    },
    { deprecatedAt: new Date('2026-01-01T00:00:00Z'), headersTimeoutMs: 5_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 1_000, logError: () => {} },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, KEY);
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface StatusBody {
  readonly rules: readonly { readonly remaining: number }[];
  readonly credits: { readonly balance: number; readonly refillAt: number | null; readonly credits: number; readonly refill: string };
}
const status = async (): Promise<StatusBody> => (await client.get('/rate_limit')).body as StatusBody;
const balance = async (): Promise<number> => (await status()).credits.balance;
const codeOf = (result: HttpResult): unknown => (result.body as { code?: unknown }).code;
const usage = () => ledger.usage({ subject: keySubject(digestApiKey(KEY)) });

describe('a plan with credits over HTTP', () => {
  it('spends each request’s cost, shows the balance in GET /rate_limit, and refuses a request costing more 402 credits_exhausted with the refill time, counting nothing of it', async () => {
    expect((await status()).credits).toEqual({ name: 'monthly', balance: 20, credits: 20, refill: 'month', refillAt: Date.UTC(2026, 11, 1) / 1000, cost: { createPet: 5, default: 1 }, refund: ['404'] });
    for (let i = 0; i < 3; i++) expect((await client.post('/pets', { json: PET })).status).toBe(201);
    expect(await balance()).toBe(5);
    expect((await client.post('/pets', { json: PET })).status).toBe(201);
    const refused = await client.post('/pets', { json: PET });
    expect(refused.status).toBe(402);
    expect(codeOf(refused)).toBe('credits_exhausted');
    expect(refused.headers.get('retry-after')).toBe('60');
    expect((refused.body as { message: string }).message).toBe(
      "This API key's credits (monthly) hold 0; this request costs 5. They refill to 20 at 2026-12-01T00:00:00.000Z, or when topped up.",
    );
    // Four requests counted under the minute: the refused fifth was given back.
    expect((await status()).rules[0]?.remaining).toBe(2);
    expect(await usage()).toMatchObject([{ spent: 20, spends: 4, refused: 1 }]);
  });

  it('spends nothing for a request another rule refuses, and refills on the first of the month', async () => {
    for (let i = 0; i < 6; i++) expect((await client.get('/pets')).status).toBe(200);
    const limited = await client.get('/pets');
    expect([limited.status, codeOf(limited)]).toEqual([429, 'rate_limited']);
    expect(await balance()).toBe(14);
    clock.set(Date.UTC(2026, 11, 1, 0, 2));
    expect(await balance()).toBe(20);
    expect((await client.post('/pets', { json: PET })).status).toBe(201);
    expect((await status()).credits).toMatchObject({ balance: 15, refillAt: Date.UTC(2027, 0, 1) / 1000 });
  });

  it('spends nothing for an idempotent replay, and gives a refunded answer its credit back', async () => {
    const create = (): Promise<HttpResult> => requestWithHeaders(client, 'POST', '/pets', { json: PET, key: KEY, headers: { 'idempotency-key': 'pet-1' } });
    const first = await create();
    const again = await create();
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect((await client.get('/pets/999999')).status).toBe(404);
    // The refunds land once each answer is written, just after the client has it.
    await expect.poll(balance).toBe(15);
    expect(await usage()).toMatchObject([{ spent: 11, spends: 3, refunded: 6, refunds: 2 }]);
  });
});
