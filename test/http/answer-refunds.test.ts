import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { createHttpServer, type PetStoreHttpServer } from '../../src/adapters/http/http-server.js';
import type { RequestFinishedEvent } from '../../src/adapters/http/wire/request-finished.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { MAX_BAN_STRIKES } from '../../src/domain/quota/ban-policy.js';
import type { Plan } from '../../src/domain/quota/plan.js';
import { RequestAdmission } from '../../src/domain/quota/request-admission.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { memoryServices } from '../support/memory-services.js';

const KEY = 'refund-key-001';
/** Every request 1 under `minute` (given back on a 404 or a 5xx) and `day` (kept); a search also 1 under `search` (given back on a 5xx). */
const REFUNDING: Plan = {
  name: 'refunding',
  rules: [
    { name: 'minute', limit: 3, windowMs: 60_000, refund: ['404', '5xx'] },
    { name: 'day', limit: 100, windowMs: 86_400_000 },
    { name: 'search', limit: 2, windowMs: 60_000, match: ['listPets'], refund: ['5xx'] },
  ],
};
const FOURS_KEY = 'refund-key-002';
const FOURS: Plan = { name: 'fours', rules: [{ name: 'minute', limit: 1, windowMs: 60_000, refund: ['4xx'] }] };

/** Pets that fail as an unreachable store (503) while `failing` is set. */
const switchedPets = (): { readonly pets: PetRepository; fail(on: boolean): void } => {
  let failing = false;
  const pets = new Proxy(new MemoryPetRepository(), {
    get: (target, name) => {
      const value: unknown = Reflect.get(target, name);
      if (typeof value !== 'function') return value;
      return failing && name !== 'writeCount' ? () => Promise.reject(new StoreUnavailableError('PostgreSQL')) : value.bind(target);
    },
  });
  return { pets, fail: (on) => (failing = on) };
};

interface Edge {
  readonly events: RequestFinishedEvent[];
  readonly logged: string[];
  fail(on: boolean): void;
  get(path: string, key?: string): Promise<{ status: number; remaining: (rule: string) => number | undefined; event: RequestFinishedEvent }>;
}

let server: PetStoreHttpServer | undefined;
afterEach(() => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve()))));

const start = async (quotas: (memory: MemoryQuotaStore) => QuotaStore = (memory) => memory): Promise<Edge> => {
  const keys = new MemoryApiKeyRegistry();
  await keys.register(digestApiKey(KEY), { plan: REFUNDING, role: 'customer' });
  await keys.register(digestApiKey(FOURS_KEY), { plan: FOURS, role: 'customer' });
  const clock = new ManualClock(1_800_000_000_000);
  const admission = new RequestAdmission(keys, quotas(new MemoryQuotaStore(clock)), {
    anonymousPolicy: { rules: [{ name: 'minute', limit: 100, windowMs: 60_000 }] },
    ban: { strikes: MAX_BAN_STRIKES, strikeWindowMs: 60_000, banMs: 60_000 },
  });
  const { pets, fail } = switchedPets();
  const events: RequestFinishedEvent[] = [];
  const logged: string[] = [];
  server = createHttpServer(
    { ...(await memoryServices({ pets })), admission },
    {
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 10_000,
      keepAliveTimeoutMs: 1_000,
      onFinished: (event) => events.push(event),
      logError: (message) => logged.push(message),
    },
  );
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let sent = 0;
  return {
    events,
    logged,
    fail,
    get: async (path, key = KEY) => {
      const requestId = `refund-${++sent}`;
      const answer = await fetch(`${origin}/v1${path}`, { headers: { authorization: `Bearer ${key}`, 'x-request-id': requestId } });
      await answer.arrayBuffer();
      const fields = answer.headers.get('ratelimit') ?? '';
      // The hook is told once the connection is done with the request (and its refund, with the store).
      let event: RequestFinishedEvent | undefined;
      for (let wait = 0; event === undefined && wait < 200; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        event = events.find((told) => told.requestId === requestId);
      }
      if (event === undefined) throw new Error(`no request-finished event for ${requestId}`);
      const remaining = (rule: string): number | undefined => {
        const found = new RegExp(`"${rule}";r=(\\d+)`).exec(fields)?.[1];
        return found === undefined ? undefined : Number(found);
      };
      return { status: answer.status, remaining, event };
    },
  };
};

describe('refunds at the HTTP edge', () => {
  it('gives a key its cost back under each rule refunding the answer (a 404, a 5xx), keeps it after a 2xx, and names the rules on the request-finished event', async () => {
    const edge = await start();
    // Four 404s on a rule of three: each gives back what it spent under `minute`, never under `day`.
    for (let i = 0; i < 4; i++) {
      const missing = await edge.get('/pets/999');
      expect(missing.status).toBe(404);
      expect([missing.remaining('minute'), missing.remaining('day')]).toEqual([2, 99 - i]);
      expect(missing.event).toMatchObject({ verdict: 'admitted', refunded: ['minute'], refundLost: null });
    }
    // A 503 of the pets store: a search gives back under `minute` and `search`.
    edge.fail(true);
    const failed = await edge.get('/pets');
    expect(failed.status).toBe(503);
    expect(failed.event.refunded).toEqual(['minute', 'search']);
    edge.fail(false);
    // 2xx answers keep their cost: the search rule admits two, then refuses.
    const listed = [await edge.get('/pets'), await edge.get('/pets')];
    expect(listed.map(({ status, remaining }) => [status, remaining('minute'), remaining('search')])).toEqual([
      [200, 2, 1],
      [200, 1, 0],
    ]);
    expect(listed.map(({ event }) => event.refunded)).toEqual([null, null]);
    const refused = await edge.get('/pets');
    expect([refused.status, refused.event.verdict, refused.event.refunded]).toEqual([429, 'rate_limited', null]);
  });

  it('gives nothing back for a refusal, though its status is one the rule refunds: a 429 counted nothing', async () => {
    const edge = await start();
    expect((await edge.get('/pets/999', FOURS_KEY)).event.refunded).toEqual(['minute']);
    expect((await edge.get('/pets', FOURS_KEY)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const refused = await edge.get('/pets/999', FOURS_KEY);
      expect([refused.status, refused.event.refunded]).toEqual([429, null]);
    }
  });

  it('tells a refund the store could not take as lost (its cost stays spent), after the store answered: an outage silently, any other failure logged', async () => {
    for (const failure of [new StoreUnavailableError('Redis'), new Error('a bug in the store')]) {
      const edge = await start((memory) => ({
        decide: (subject, policy, cost) => memory.decide(subject, policy, cost),
        peek: (subject, policy, cost) => memory.peek(subject, policy, cost),
        reset: (subject) => memory.reset(subject),
        refund: () => new Promise((_resolve, reject) => setTimeout(() => reject(failure), 20)),
      }));
      const answers = [await edge.get('/pets/999'), await edge.get('/pets/999')];
      expect(answers.map(({ remaining }) => remaining('minute'))).toEqual([2, 1]);
      expect(answers.map(({ event }) => [event.refunded, event.refundLost])).toEqual([
        [null, ['minute']],
        [null, ['minute']],
      ]);
      expect(edge.logged).toEqual(failure instanceof StoreUnavailableError ? [] : ['quota refund failed', 'quota refund failed']);
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });

  it('tells a refund lost when the store throws at once, and answers every request all the same', async () => {
    const edge = await start((memory) => ({
      decide: (subject, policy, cost) => memory.decide(subject, policy, cost),
      peek: (subject, policy, cost) => memory.peek(subject, policy, cost),
      reset: (subject) => memory.reset(subject),
      refund: () => {
        throw new RangeError('a refund the store refuses');
      },
    }));
    const missing = await edge.get('/pets/999');
    expect([missing.status, missing.event.refundLost]).toEqual([404, ['minute']]);
    expect((await edge.get('/pets')).status).toBe(200);
    expect(edge.logged).toEqual(['quota refund failed']);
  });
});
