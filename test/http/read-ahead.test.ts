import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { createRequestHandler } from '../../src/adapters/http/request-handler.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { enterprisePlan } from '../../src/domain/quota/plan.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import { RequestAdmission } from '../../src/domain/quota/request-admission.js';
import type { PetPageQuery, StoredPetPage } from '../../src/ports/pet-repository.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { memoryServices } from '../support/memory-services.js';

const KEY = 'read-ahead-key';

/** A remote quota store, as Redis is: each decision waits until the test releases it. */
class HeldQuotaStore implements QuotaStore {
  readonly #local = new MemoryQuotaStore(new SystemClock());
  readonly held: (() => void)[] = [];

  decide(subject: string, policy: QuotaPolicy): Promise<QuotaDecision> {
    return new Promise((resolve) => this.held.push(() => resolve(this.#local.decide(subject, policy))));
  }

  peek(subject: string, policy: QuotaPolicy): QuotaDecision {
    return this.#local.peek(subject, policy);
  }

  reset(subject: string): void {
    this.#local.reset(subject);
  }

  refund(): never {
    throw new Error('this test does not refund');
  }
}

/** Pets whose page reads are recorded with how many quota decisions were pending then. */
class WatchedPets extends MemoryPetRepository {
  readonly reads: { readonly query: PetPageQuery; readonly pendingDecisions: number }[] = [];
  constructor(private readonly quotas: HeldQuotaStore) {
    super();
  }
  override pageJson(query: PetPageQuery): Promise<StoredPetPage> {
    this.reads.push({ query, pendingDecisions: this.quotas.held.length });
    return super.pageJson(query);
  }
}

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve()))));

const start = async (limit: number): Promise<{ origin: string; quotas: HeldQuotaStore; pets: WatchedPets }> => {
  const quotas = new HeldQuotaStore();
  const pets = new WatchedPets(quotas);
  for (let i = 0; i < 3; i++) await pets.create({ name: `pet ${i}`, categoryId: 1, status: 'available' });
  const keys = new MemoryApiKeyRegistry();
  await keys.register(digestApiKey(KEY), { plan: enterprisePlan(limit, 1_000), role: 'customer' });
  const admission = new RequestAdmission(keys, quotas, { anonymousPolicy: { rules: [{ name: 'minute', limit: 10, windowMs: 60_000 }] }, ban: DEFAULT_BAN_POLICY });
  server = createServer(createRequestHandler({ ...(await memoryServices({ pets })), admission }));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, quotas, pets };
};

/** Sends the request, waits until its quota decision is held, checks the page read, then releases the decision. */
interface ErrorBody {
  readonly code: string;
  readonly message: string;
}
const errorOf = async (response: Response): Promise<ErrorBody> => (await response.json()) as ErrorBody;

const listWhileHeld = async (origin: string, quotas: HeldQuotaStore, path: string): Promise<Response> => {
  const response = fetch(origin + path, { headers: { authorization: `Bearer ${KEY}` } });
  while (quotas.held.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  quotas.held.shift()?.();
  return response;
};

describe('a list read ahead, beside a remote quota decision', () => {
  it('reads the page while the quota decision is still pending, and answers it once admitted', async () => {
    const { origin, quotas, pets } = await start(100);
    const response = await listWhileHeld(origin, quotas, '/v1/pets?limit=2');
    expect(pets.reads).toEqual([{ query: { afterId: 0, limit: 2 }, pendingDecisions: 1 }]);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { id: 1, name: 'pet 0', categoryId: 1, status: 'available' },
      { id: 2, name: 'pet 1', categoryId: 1, status: 'available' },
    ]);
    expect(response.headers.get('link')).toMatch(/rel="next"$/);
  });

  it('drops what it read when the request is refused: the answer is the 429', async () => {
    const { origin, quotas, pets } = await start(1);
    expect((await listWhileHeld(origin, quotas, '/v1/pets')).status).toBe(200);
    // Another page: the one just answered would come from the list path's cache, without a read.
    const refused = await listWhileHeld(origin, quotas, '/v1/pets?limit=2');
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).code).toBe('rate_limited');
    expect(pets.reads).toHaveLength(2);
  });

  it('reads nothing ahead for a request without a key, which is answered 401', async () => {
    const { origin, quotas, pets } = await start(100);
    const response = fetch(`${origin}/v1/pets`);
    while (quotas.held.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(pets.reads).toEqual([]);
    quotas.held.shift()?.();
    expect((await response).status).toBe(401);
    expect(pets.reads).toEqual([]);
  });

  it('drops what it read when the query names an unknown parameter, and a bad limit is still the 400 of the catalog', async () => {
    const { origin, quotas } = await start(100);
    const unknown = await listWhileHeld(origin, quotas, '/v1/pets?colour=red');
    expect(unknown.status).toBe(400);
    expect(await errorOf(unknown)).toMatchObject({ code: 'invalid_request', message: 'Unknown query parameter: colour.' });
    const badLimit = await listWhileHeld(origin, quotas, '/v1/pets?limit=0');
    expect(badLimit.status).toBe(400);
    expect(await errorOf(badLimit)).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/limit/) });
  });
});
