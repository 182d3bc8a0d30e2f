import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { createHttpServer, type PetStoreHttpServer } from '../../src/adapters/http/http-server.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryConcurrencySlots } from '../../src/adapters/memory/memory-concurrency-slots.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { minuteRule, type Plan } from '../../src/domain/quota/plan.js';
import { RateLimitStatus } from '../../src/adapters/http/pipeline/rate-limit-status.js';
import { RequestAdmission } from '../../src/domain/quota/request-admission.js';
import { HeldReads } from '../support/held-reads.js';
import { ManualClock } from '../support/manual-clock.js';
import { memoryServices } from '../support/memory-services.js';
import { HttpClient, type HttpResult } from '../support/http-client.js';

const KEY = 'concurrency-cap-key';
const CAP = 3;
/** At most 3 requests in flight, and 9 a minute: the cap's refusals must leave the minute unspent. */
const CAPPED: Plan = { name: 'capped', rules: [minuteRule(9)], concurrency: { name: 'inflight', limit: CAP } };

let reads: HeldReads;
let keys: MemoryApiKeyRegistry;
let server: PetStoreHttpServer;
let client: HttpClient;

beforeEach(async () => {
  reads = new HeldReads();
  keys = new MemoryApiKeyRegistry();
  await keys.register(digestApiKey(KEY), { plan: CAPPED, role: 'customer' });
  // Time stands still: a refusal decided in the very millisecond a held request was counted is the hard case for refunds.
  const clock = new ManualClock(1_767_225_600_000);
  const quotas = new MemoryQuotaStore(clock);
  const slots = new MemoryConcurrencySlots(clock);
  const options = { anonymousPolicy: { rules: [minuteRule(1_000)] }, ban: { strikes: 1_000, strikeWindowMs: 60_000, banMs: 60_000 } };
  const admission = new RequestAdmission(keys, quotas, options, slots);
  const rateLimitStatus = new RateLimitStatus(keys, quotas, options, slots);
  server = createHttpServer(
    { ...(await memoryServices({ pets: reads.repository })), admission, rateLimitStatus },
    { deprecatedAt: new Date('2026-01-01T00:00:00Z'), headersTimeoutMs: 5_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 1_000, logError: () => {} },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, KEY);
});

afterEach(async () => {
  reads.releaseAll();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const codeOf = (result: HttpResult): unknown => (result.body as { code?: unknown }).code;

describe('a plan with a concurrency cap over HTTP', () => {
  it('admits exactly N requests of a key at once, refuses the others 429 concurrency_limited with Retry-After 1 and the quota unspent, and admits again once answers are written', async () => {
    const held = Array.from({ length: CAP }, () => client.get('/pets/1'));
    await reads.untilWaiting(CAP);
    const refused = await Promise.all(Array.from({ length: 2 }, () => client.get('/pets/1')));
    for (const result of refused) {
      expect(result.status).toBe(429);
      expect(codeOf(result)).toBe('concurrency_limited');
      expect(result.headers.get('retry-after')).toBe('1');
      // The quota's standing, peeked: the three in flight spent it, the refusals did not.
      expect(result.headers.get('x-ratelimit-remaining')).toBe('6');
    }
    expect(reads.waiting).toHaveLength(CAP);
    // The status route takes no slot, and shows the cap with the requests holding one.
    const status = await client.get('/rate_limit');
    expect(status.status).toBe(200);
    expect((status.body as { concurrency?: unknown }).concurrency).toEqual({ name: 'inflight', limit: CAP, inFlight: CAP });

    reads.releaseAll();
    expect((await Promise.all(held)).map(({ status }) => status)).toEqual([404, 404, 404]);
    const again = Array.from({ length: CAP }, () => client.get('/pets/1'));
    await reads.untilWaiting(CAP);
    reads.releaseAll();
    const answers = await Promise.all(again);
    expect(answers.map(({ status }) => status)).toEqual([404, 404, 404]);
    expect(answers.at(-1)?.headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('gives nothing back for a request the cap refused, even under a rule refunding 4xx: it was only peeked at, and the 429 must not take back what another request spent', async () => {
    const refundingKey = 'concurrency-cap-refunding-key';
    const plan: Plan = { name: 'refunding', rules: [{ ...minuteRule(9), refund: ['4xx'] }], concurrency: { name: 'inflight', limit: 1 } };
    await keys.register(digestApiKey(refundingKey), { plan, role: 'customer' });
    const refunding = new HttpClient(client.url(''), refundingKey);
    const held = refunding.get('/pets/1');
    await reads.untilWaiting(1);
    const refused = await refunding.get('/pets/1');
    expect(codeOf(refused)).toBe('concurrency_limited');
    // The held request's unit stays spent while it runs: the refusal gave nothing back.
    await sleep(20);
    const status = await refunding.get('/rate_limit');
    expect((status.body as { rules: { remaining: number }[] }).rules[0]?.remaining).toBe(8);
    reads.releaseAll();
    expect((await held).status).toBe(404);
  });

  it('gives a slot back when its client goes away before the answer', async () => {
    const aborts = Array.from({ length: CAP }, () => new AbortController());
    const gone = aborts.map((abort) =>
      fetch(client.url('/pets/1'), { headers: { authorization: `Bearer ${KEY}` }, signal: abort.signal }).catch(() => 'aborted'),
    );
    await reads.untilWaiting(CAP);
    expect((await client.get('/pets/1')).status).toBe(429);
    for (const abort of aborts) abort.abort();
    expect(await Promise.all(gone)).toEqual(['aborted', 'aborted', 'aborted']);
    // The reads still wait: only the clients' going away can have given the slots back.
    let admitted: HttpResult | undefined;
    while (admitted === undefined) {
      const next = client.get('/pets/1');
      const first = await Promise.race([next, reads.untilWaiting(CAP + 1).then(() => undefined)]);
      if (first === undefined) {
        reads.releaseAll();
        admitted = await next;
      } else {
        expect(codeOf(first)).toBe('concurrency_limited');
        await sleep(10);
      }
    }
    expect(admitted.status).toBe(404);
  });
});
