import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { createHttpServer, type PetStoreHttpServer } from '../../src/adapters/http/http-server.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisConcurrencySlots } from '../../src/adapters/redis/redis-concurrency-slots.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { minuteRule, type Plan } from '../../src/domain/quota/plan.js';
import { keySubject, RequestAdmission } from '../../src/domain/quota/request-admission.js';
import { HeldReads } from '../support/held-reads.js';
import { HttpClient, type HttpResult } from '../support/http-client.js';
import { memoryServices } from '../support/memory-services.js';
import { useTestRedis } from '../support/use-test-redis.js';

const shared = useTestRedis();
const KEY = 'concurrency-multi-instance-key';
const CAP = 4;
const CAPPED: Plan = { name: 'capped', rules: [minuteRule(1_000)], concurrency: { name: 'inflight', limit: CAP } };
/** The instances' lease, short so a killed instance's slots come back within the test; the service's is SLOT_LEASE_MS. */
const LEASE_MS = 1_000;

interface Instance {
  readonly reads: HeldReads;
  readonly client: HttpClient;
  readonly redis: Redis;
  readonly server: PetStoreHttpServer;
  readonly slots: RedisConcurrencySlots;
}

/** One in-process instance of the service on the shared Redis: its own client, quota store, slots and held reads. */
async function startInstance(prefix: string): Promise<Instance> {
  const redis = await createRedisClient({ url: shared.url, commandTimeoutMs: 5_000 });
  const keys = new MemoryApiKeyRegistry();
  await keys.register(digestApiKey(KEY), { plan: CAPPED, role: 'customer' });
  const slots = new RedisConcurrencySlots(redis, { prefix, leaseMs: LEASE_MS });
  const admission = new RequestAdmission(
    keys,
    new RedisQuotaStore(redis, { prefix }),
    { anonymousPolicy: { rules: [minuteRule(1_000)] }, ban: { strikes: 1_000, strikeWindowMs: 60_000, banMs: 60_000 } },
    slots,
  );
  const reads = new HeldReads();
  const server = createHttpServer(
    { ...(await memoryServices({ pets: reads.repository })), admission },
    { deprecatedAt: new Date('2026-01-01T00:00:00Z'), headersTimeoutMs: 5_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 1_000, logError: () => {} },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { reads, redis, server, slots, client: new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, KEY) };
}

const stop = async ({ reads, redis, server }: Instance): Promise<void> => {
  reads.releaseAll();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  redis.disconnect();
};

const codeOf = (result: HttpResult): unknown => (result.body as { code?: unknown }).code;
const inFlight = (instances: readonly Instance[]): number => instances.reduce((sum, { reads }) => sum + reads.waiting.length, 0);

/**
 * A slot is given back once its answer is written, so a client can hold the answer before Redis
 * has the release: the next phase waits for it rather than racing it.
 */
async function untilNoSlotTaken({ slots }: Instance): Promise<void> {
  const deadline = Date.now() + 5_000;
  const subject = keySubject(digestApiKey(KEY));
  while ((await slots.inFlight(subject)) > 0) {
    if (Date.now() > deadline) throw new Error(`slots of the key still taken 5 s after their answers`);
    await sleep(5);
  }
}

let instances: Instance[];

beforeAll(async () => {
  const prefix = shared.freshPrefix();
  instances = await Promise.all([startInstance(prefix), startInstance(prefix)]);
});
afterAll(async () => {
  await Promise.all(instances.map(stop));
});

describe('a concurrency cap over two instances on one Redis', () => {
  it('holds exactly N requests of a key in flight across both, refuses the rest, and admits again once they are answered', async () => {
    const [a, b] = instances as [Instance, Instance];
    // N + k requests, alternating between the instances, all at once.
    const sent = Array.from({ length: CAP + 4 }, (_, i) => (i % 2 === 0 ? a : b).client.get('/pets/1'));
    await Promise.race([Promise.all(sent), sleep(1_000)]);
    expect(inFlight(instances)).toBe(CAP);
    a.reads.releaseAll();
    b.reads.releaseAll();
    const answers = await Promise.all(sent);
    expect(answers.filter(({ status }) => status === 404)).toHaveLength(CAP);
    expect(answers.filter((result) => result.status === 429).map(codeOf)).toEqual(['concurrency_limited', 'concurrency_limited', 'concurrency_limited', 'concurrency_limited']);
    await untilNoSlotTaken(a);
    const again = Array.from({ length: CAP }, (_, i) => (i % 2 === 0 ? a : b).client.get('/pets/1'));
    await a.reads.untilWaiting(CAP / 2);
    await b.reads.untilWaiting(CAP / 2);
    a.reads.releaseAll();
    b.reads.releaseAll();
    expect((await Promise.all(again)).map(({ status }) => status)).toEqual([404, 404, 404, 404]);
    await untilNoSlotTaken(a);
  });

  it("gives a killed instance's slots back to the other within the lease time, never holding more than N meanwhile", async () => {
    const [a, b] = instances as [Instance, Instance];
    const held = Array.from({ length: CAP }, () => a.client.get('/pets/1').catch(() => undefined));
    await a.reads.untilWaiting(CAP);
    expect(codeOf(await b.client.get('/pets/1'))).toBe('concurrency_limited');
    // Killed: Redis hears from it no more (no release, no renewal), and its clients lose their connections.
    a.redis.disconnect();
    const killedAt = Date.now();
    a.server.closeAllConnections();
    await Promise.all(held);
    let admitted: Promise<HttpResult> | undefined;
    const givingUpAt = Date.now() + 10 * LEASE_MS;
    while (admitted === undefined) {
      if (Date.now() > givingUpAt) throw new Error(`the killed instance's slots not back after ${10 * LEASE_MS} ms`);
      const next = b.client.get('/pets/1');
      const refused = await Promise.race([next, b.reads.untilWaiting(1).then(() => undefined)]);
      if (refused === undefined) admitted = next;
      else {
        expect(codeOf(refused)).toBe('concurrency_limited');
        await sleep(50);
      }
    }
    // Within the lease after the last renewal, which came at most a third of it before the kill (and slack for a loaded machine).
    expect(Date.now() - killedAt).toBeLessThanOrEqual(LEASE_MS + 700);
    // N slots come back, not more.
    const rest = Array.from({ length: CAP }, () => b.client.get('/pets/1'));
    const refusedOne = await Promise.race(rest);
    expect(codeOf(refusedOne)).toBe('concurrency_limited');
    await b.reads.untilWaiting(CAP);
    expect(b.reads.waiting).toHaveLength(CAP);
    b.reads.releaseAll();
    await Promise.all([admitted, ...rest]);
  });
});
