import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { createHttpServer, type PetStoreHttpServer } from '../../src/adapters/http/http-server.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryConcurrencySlots } from '../../src/adapters/memory/memory-concurrency-slots.js';
import { MemoryCreditLedger } from '../../src/adapters/memory/memory-credit-ledger.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { createMetrics, type PetStoreMetrics } from '../../src/app/admin/metrics.js';
import { minuteRule, type Plan } from '../../src/domain/quota/plan.js';
import { keySubject, RequestAdmission } from '../../src/domain/quota/request-admission.js';
import { ALERT_RULES } from '../../scripts/alerts/alert-rules.js';
import { ManualClock } from '../support/manual-clock.js';
import { memoryServices } from '../support/memory-services.js';

/*
 * The verdicts the alert rules name (`verdict=~"rate_limited|banned|..."`) are the ones the
 * service counts in petstore_quota_decisions_total: each provoked on an in-process server, its
 * answer's status checked (the 429 share must hold 429s alone, the 402 share 402s), then read
 * from the metrics. A verdict renamed in the code fails here.
 */

/** Each verdict a rule names, and the status it is answered with. */
const VERDICT_STATUSES: Readonly<Record<string, number>> = {
  rate_limited: 429,
  banned: 429,
  concurrency_limited: 429,
  credits_exhausted: 402,
};

/** Every verdict label value a rule's expression names, in `verdict="x"` or `verdict=~"x|y"`. */
const verdictsNamed = (): Set<string> =>
  new Set(ALERT_RULES.flatMap(({ expr }) => [...expr.matchAll(/verdict=~?"([^"]*)"/g)].flatMap(([, values = '']) => values.split('|'))));

const plan = (name: string, extra: Partial<Plan>): Plan => ({ name, rules: [minuteRule(100)], ...extra });
/** Each key's plan lets one request through, then refuses the next by one verdict. */
const KEYS = {
  rate_limited: plan('tight', { rules: [minuteRule(1)] }),
  banned: plan('tight', { rules: [minuteRule(1)] }),
  credits_exhausted: plan('metered', { credits: { name: 'monthly', credits: 1, refill: 'month', cost: { default: 1 } } }),
  concurrency_limited: plan('capped', { concurrency: { name: 'in-flight', limit: 1 } }),
} as const;
/** Two strikes ban (a strike: a request refused again before its Retry-After): the `banned` key's fourth request. */
const BAN = { strikes: 2, strikeWindowMs: 60_000, banMs: 60_000 };

let server: PetStoreHttpServer;
let metrics: PetStoreMetrics;
let baseUrl: string;
let slots: MemoryConcurrencySlots;
/** The verdict and status of each request finished. */
const finished: [string | null, number][] = [];

beforeAll(async () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 27, 12));
  const keys = new MemoryApiKeyRegistry();
  for (const [key, keyPlan] of Object.entries(KEYS)) await keys.register(digestApiKey(key), { plan: keyPlan, role: 'customer' });
  slots = new MemoryConcurrencySlots(clock);
  const admission = new RequestAdmission(keys, new MemoryQuotaStore(clock), { anonymousPolicy: { rules: [minuteRule(100)] }, ban: BAN }, slots, {
    ledger: new MemoryCreditLedger(),
    clock,
  });
  metrics = createMetrics([]);
  server = createHttpServer(
    { ...(await memoryServices({ clock })), admission },
    {
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 10_000,
      keepAliveTimeoutMs: 1_000,
      logError: () => {},
      onFinished: (event) => {
        finished.push([event.verdict, event.status]);
        metrics.observe(event);
      },
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const list = async (key: string): Promise<number> => {
  const response = await fetch(`${baseUrl}/pets`, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.status;
};

describe('the verdicts the alert rules name', () => {
  it('are the ones a refusal is answered and counted with', async () => {
    expect(verdictsNamed()).toEqual(new Set(Object.keys(VERDICT_STATUSES)));
    // The capped key's one slot held, as by a request in flight.
    expect(slots.acquire(keySubject(digestApiKey('concurrency_limited')), 1).granted).toBe(true);
    const sent = { rate_limited: 2, banned: 4, credits_exhausted: 2, concurrency_limited: 1 };
    const answered: Record<string, number[]> = {};
    for (const [key, requests] of Object.entries(sent)) {
      const statuses: number[] = [];
      for (let n = 0; n < requests; n++) statuses.push(await list(key));
      answered[key] = statuses;
    }
    expect(answered).toEqual({ rate_limited: [200, 429], banned: [200, 429, 429, 429], credits_exhausted: [200, 402], concurrency_limited: [429] });
    const text = await metrics.text();
    for (const verdict of verdictsNamed()) {
      expect(text, verdict).toMatch(new RegExp(`^petstore_quota_decisions_total\\{plan="[^"]+",verdict="${verdict}"\\} [1-9]`, 'm'));
    }
    // Each verdict's status: the 429 share counts 429s alone, the 402 share 402s.
    const statusesOf = (verdict: string): Set<number> => new Set(finished.filter(([seen]) => seen === verdict).map(([, status]) => status));
    for (const [verdict, status] of Object.entries(VERDICT_STATUSES)) expect(statusesOf(verdict), verdict).toEqual(new Set([status]));
  });
});
