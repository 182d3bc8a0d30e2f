import { describe, expect, it } from 'vitest';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryConcurrencySlots } from '../../src/adapters/memory/memory-concurrency-slots.js';
import { MemoryCreditLedger } from '../../src/adapters/memory/memory-credit-ledger.js';
import { MemoryIdempotencyRecords } from '../../src/adapters/memory/memory-idempotency-records.js';
import { MemoryOrderRepository } from '../../src/adapters/memory/memory-order-repository.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import type { Caller } from '../../src/domain/access/caller.js';
import { OrderService } from '../../src/domain/orders/order-service.js';
import { PetCatalog } from '../../src/domain/pets/pet-catalog.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { STANDARD_PLANS, type Plan } from '../../src/domain/quota/plan.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { RuleCosts } from '../../src/domain/quota/quota-rule.js';
import { keySubject, RequestAdmission, type Admission } from '../../src/domain/quota/request-admission.js';
import type { ApiKeyGrant, ApiKeyRegistry } from '../../src/ports/api-key-registry.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { decidingStore } from '../support/quota-store-doubles.js';

const CUSTOMER = 'c1'.repeat(32);
const STAFF = '5f'.repeat(32);

const admissionOver = (keys: ApiKeyRegistry, quotas: QuotaStore = new MemoryQuotaStore(new ManualClock(0))): RequestAdmission =>
  new RequestAdmission(keys, quotas, {
    anonymousPolicy: { rules: [{ name: 'minute', limit: 60, windowMs: 60_000 }] },
    ban: DEFAULT_BAN_POLICY,
  });

const registryOf = async (grants: Record<string, ApiKeyGrant>): Promise<MemoryApiKeyRegistry> => {
  const keys = new MemoryApiKeyRegistry();
  for (const [digest, grant] of Object.entries(grants)) await keys.register(digest, grant);
  return keys;
};

describe('RequestAdmission: who is calling', () => {
  it('names the caller of a known key by its digest, with the role the key grants; no caller without a known key', async () => {
    const admission = admissionOver(
      await registryOf({
        [CUSTOMER]: { plan: STANDARD_PLANS.free, role: 'customer' },
        [STAFF]: { plan: STANDARD_PLANS.pro, role: 'staff' },
      }),
    );
    expect(await admission.admit(CUSTOMER, '192.0.2.1')).toMatchObject({
      plan: STANDARD_PLANS.free,
      caller: { id: CUSTOMER, role: 'customer' },
    });
    expect(await admission.admit(STAFF, '192.0.2.1')).toMatchObject({ plan: STANDARD_PLANS.pro, caller: { id: STAFF, role: 'staff' } });
    for (const digest of ['00'.repeat(32), undefined]) {
      expect(await admission.admit(digest, '192.0.2.1')).toMatchObject({ plan: undefined, caller: undefined });
    }
  });

  it('answers synchronously from memory and hands each request of a key the same frozen caller and policy', async () => {
    const admission = admissionOver(await registryOf({ [STAFF]: { plan: STANDARD_PLANS.pro, role: 'staff' } }));
    const first = admission.admit(STAFF, '192.0.2.1');
    const second = admission.admit(STAFF, '192.0.2.1');
    if (first instanceof Promise || second instanceof Promise) throw new Error('the in-memory path must stay synchronous');
    expect(second.caller).toBe(first.caller);
    expect(second.policy).toBe(first.policy);
    expect(Object.isFrozen(first.caller)).toBe(true);
  });

  it('gives each key its own caller even when a registry shares one grant object between keys, and awaits a remote one', async () => {
    const shared: ApiKeyGrant = { plan: STANDARD_PLANS.business, role: 'staff' };
    const remote: ApiKeyRegistry = { grantOf: async () => shared, register: async () => {} };
    const admission = admissionOver(remote);
    for (const digest of [CUSTOMER, STAFF, CUSTOMER]) {
      expect((await admission.admit(digest, '192.0.2.1')).caller).toEqual({ id: digest, role: 'staff' });
    }
  });
});

describe('RequestAdmission: a rolled key', () => {
  const OLD = '01'.repeat(32);
  const NEW = '02'.repeat(32);
  const T0 = Date.UTC(2026, 10, 26);

  const rolledKey = async () => {
    const clock = new ManualClock(T0);
    const keys = new MemoryApiKeyRegistry(clock);
    await keys.createKey(OLD, { id: 'key_a', label: '', plan: STANDARD_PLANS.free, role: 'customer', createdAt: T0 });
    await keys.rollKey('key_a', NEW, T0 + 86_400_000, T0);
    const quotas = new MemoryQuotaStore(clock);
    return { clock, quotas, admission: admissionOver(keys, quotas) };
  };

  it('counts requests by the old and the new secret against one quota, the one its usage is read by', async () => {
    const { admission, quotas } = await rolledKey();
    const [minute] = STANDARD_PLANS.free.rules;
    const limit = minute?.limit ?? 0;
    for (let i = 0; i < limit; i += 1) {
      expect((await admission.admit(i % 2 === 0 ? OLD : NEW, '192.0.2.1')).decision.verdict, `request ${i + 1}`).toBe('admitted');
    }
    expect((await admission.admit(NEW, '192.0.2.1')).decision.verdict).toBe('rate_limited');
    expect((await admission.admit(OLD, '192.0.2.1')).decision.verdict).toBe('rate_limited');
    // `petstore keys show` and `unban` read and reset keySubject of the digest the key was created with.
    await quotas.reset(keySubject(OLD));
    expect((await admission.admit(NEW, '192.0.2.1')).decision.verdict).toBe('admitted');
  });

  it('is one caller by either secret, the key it was created as: an order placed by the old secret is seen and listed by the new one', async () => {
    const { admission, clock } = await rolledKey();
    const callerBy = async (digest: string): Promise<Caller> => {
      const { caller } = await admission.admit(digest, '192.0.2.1');
      if (caller === undefined) throw new Error(`no caller for ${digest}`);
      return caller;
    };
    const [byOld, byNew] = [await callerBy(OLD), await callerBy(NEW)];
    expect(byNew).toEqual(byOld);
    expect(byNew).toEqual({ id: OLD, role: 'customer' });

    const records = new MemoryIdempotencyRecords(clock);
    const pets = new MemoryPetRepository(records);
    await new PetCatalog(pets).create({ name: 'Rex', categoryId: 1 });
    const orders = new OrderService(new MemoryOrderRepository(pets, records), clock);
    const placed = await orders.place(byOld, { petId: 1 });
    if (!placed.ok) throw new Error(placed.error.message);
    expect(await orders.get(byNew, placed.value.id)).toEqual({ ok: true, value: placed.value });
    expect(await orders.list(byNew, {})).toMatchObject({ ok: true, value: { orders: [placed.value] } });
  });

  it('refuses the old secret once its grace has ended, and answers the new one synchronously, every request with the same caller and policy', async () => {
    const { admission, clock } = await rolledKey();
    clock.set(T0 + 86_400_000);
    expect(await admission.admit(OLD, '192.0.2.1')).toMatchObject({ plan: undefined, caller: undefined });
    const first = admission.admit(NEW, '192.0.2.1');
    const second = admission.admit(NEW, '192.0.2.1');
    if (first instanceof Promise || second instanceof Promise) throw new Error('the in-memory path must stay synchronous');
    expect(second.caller).toBe(first.caller);
    expect(second.policy).toBe(first.policy);
  });
});

describe('RequestAdmission: policies no store can decide', () => {
  it.each([
    ['a ban of 0 strikes', { anonymousPolicy: { rules: [{ name: 'minute', limit: 60, windowMs: 60_000 }] }, ban: { ...DEFAULT_BAN_POLICY, strikes: 0 } }],
    ['a ban of more strikes than a store keeps', { anonymousPolicy: { rules: [{ name: 'minute', limit: 60, windowMs: 60_000 }] }, ban: { ...DEFAULT_BAN_POLICY, strikes: 1_000_000 } }],
    ['an anonymous rule of limit 0', { anonymousPolicy: { rules: [{ name: 'minute', limit: 0, windowMs: 60_000 }] }, ban: DEFAULT_BAN_POLICY }],
  ])('refuses %s when built, not on every request after', (_what, options) => {
    expect(() => new RequestAdmission(new MemoryApiKeyRegistry(), new MemoryQuotaStore(new ManualClock(0)), options)).toThrow(RangeError);
  });
});

describe('RequestAdmission: by operation', () => {
  const SEARCH: Plan = {
    name: 'search',
    rules: [
      { name: 'minute', limit: 100, windowMs: 60_000 },
      { name: 'search', limit: 10, windowMs: 60_000, match: ['listPets'], cost: 2 },
      { name: 'writes', limit: 50, windowMs: 3_600_000, match: ['placeOrder'], cost: { placeOrder: 5 }, mode: 'shadow' },
    ],
  };
  const ADMITTED: QuotaDecision = { verdict: 'admitted', decidedAt: 0, remaining: [1, 1, 1], resetAt: [0, 0, 0], retryAt: 0 };

  /** An admission over a store that records the costs it was handed, so the engine's treatment of them is not this test's. */
  const recording = async (plan: Plan) => {
    const costs: (number | RuleCosts | undefined)[] = [];
    const store = decidingStore((_subject, _policy, cost) => {
      costs.push(cost);
      return ADMITTED;
    });
    return { costs, admission: admissionOver(await registryOf({ [CUSTOMER]: { plan, role: 'customer' } }), store) };
  };

  it("decides a plan of rules with each rule's cost of the routed operation, 0 where the rule does not match", async () => {
    const { costs, admission } = await recording(SEARCH);
    for (const operation of ['listPets', 'placeOrder', 'getPet', undefined]) await admission.admit(CUSTOMER, '192.0.2.1', operation);
    expect(costs).toEqual([
      [1, 2, 0],
      [1, 0, 5],
      [1, 0, 0],
      [1, 0, 0],
    ]);
  });

  it('hands the store one frozen RuleCosts per plan and operation, and reports it with the decision', async () => {
    const { costs, admission } = await recording(SEARCH);
    const first = await admission.admit(CUSTOMER, '192.0.2.1', 'listPets');
    await admission.admit(CUSTOMER, '192.0.2.1', 'listPets');
    expect(costs[1]).toBe(costs[0]);
    expect(Object.isFrozen(costs[0])).toBe(true);
    expect(first.costs).toBe(costs[0]);
  });

  it("decides today's plans and anonymous callers with the plain cost 1, whatever the operation", async () => {
    const { costs, admission } = await recording(STANDARD_PLANS.pro);
    await admission.admit(CUSTOMER, '192.0.2.1', 'listPets');
    await admission.admit(undefined, '192.0.2.1', 'placeOrder');
    await admission.admit('00'.repeat(32), '192.0.2.1', 'placeOrder');
    expect(costs).toEqual([1, 1, 1]);
    expect((await admission.admit(CUSTOMER, '192.0.2.1', 'getPet')).costs).toBe(1);
  });
});

describe('RequestAdmission: a plan with a concurrency cap', () => {
  const CAPPED: Plan = {
    name: 'capped',
    rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }],
    concurrency: { name: 'inflight', limit: 1, match: ['createPet'] },
  };
  const capped = async (): Promise<{ admission: RequestAdmission; slots: MemoryConcurrencySlots }> => {
    const clock = new ManualClock(0);
    const slots = new MemoryConcurrencySlots(clock);
    const keys = await registryOf({ [CUSTOMER]: { plan: CAPPED, role: 'customer' } });
    const admission = new RequestAdmission(keys, new MemoryQuotaStore(clock), { anonymousPolicy: { rules: [] }, ban: DEFAULT_BAN_POLICY }, slots);
    return { admission, slots };
  };

  it('takes a slot only for the operations the cap matches, and refuses past it with the quota peeked, not spent', async () => {
    const { admission } = await capped();
    const first = await admission.admit(CUSTOMER, '', 'createPet');
    expect(first.slot).toMatchObject({ granted: true, inFlight: 1 });
    expect(first.decision.remaining).toEqual([1]);
    const refused = await admission.admit(CUSTOMER, '', 'createPet');
    expect(refused.slot).toMatchObject({ granted: false, inFlight: 1 });
    expect(refused.decision).toMatchObject({ verdict: 'admitted', remaining: [1] });
    const other = await admission.admit(CUSTOMER, '', 'listPets');
    expect(other.slot).toBeUndefined();
    expect(other.decision.remaining).toEqual([0]);
    await first.slot!.release();
    // The quota refuses now: the slot taken for the request is given back at once.
    const limited = await admission.admit(CUSTOMER, '', 'createPet');
    expect(limited).toMatchObject({ decision: { verdict: 'rate_limited' } });
    expect(limited.slot).toBeUndefined();
  });

  it('gives the slot back when the quota refuses', async () => {
    const { admission, slots } = await capped();
    await admission.admit(CUSTOMER, '', 'listPets');
    await admission.admit(CUSTOMER, '', 'listPets');
    expect((await admission.admit(CUSTOMER, '', 'createPet')).decision.verdict).toBe('rate_limited');
    expect(slots.acquire(keySubject(CUSTOMER), 1).granted).toBe(true);
  });
});

describe('RequestAdmission: a plan with credits', () => {
  const FUNDED: Plan = {
    name: 'funded',
    rules: [{ name: 'minute', limit: 3, windowMs: 60_000 }],
    concurrency: { name: 'inflight', limit: 1 },
    credits: { name: 'prepaid', credits: 5, cost: { createPet: 3, default: 1 }, match: ['createPet', 'listPets'] },
  };
  const funded = async () => {
    const clock = new ManualClock(0);
    const slots = new MemoryConcurrencySlots(clock);
    const ledger = new MemoryCreditLedger();
    const quotas = new MemoryQuotaStore(clock);
    const keys = await registryOf({ [CUSTOMER]: { plan: FUNDED, role: 'customer' } });
    const admission = new RequestAdmission(keys, quotas, { anonymousPolicy: { rules: [] }, ban: DEFAULT_BAN_POLICY }, slots, { ledger, clock });
    const balance = (): number => ledger.standing(keySubject(CUSTOMER), FUNDED.credits!, clock.now()).balance;
    return { admission, slots, quotas, balance };
  };

  it('spends the cost once the rules and the cap admitted, synchronously on memory stores, and not for operations the credits do not match', async () => {
    const { admission, balance } = await funded();
    const created = admission.admit(CUSTOMER, '', 'createPet');
    expect(created).not.toBeInstanceOf(Promise);
    expect((created as Admission).credit).toMatchObject({ granted: true, units: 3, balance: 2 });
    await (created as Admission).slot!.release();
    const inventory = await admission.admit(CUSTOMER, '', 'getInventory');
    expect(inventory.credit).toBeUndefined();
    expect(balance()).toBe(2);
  });

  it('spends nothing for a request the cap or a rule refuses', async () => {
    const { admission, balance } = await funded();
    const held = await admission.admit(CUSTOMER, '', 'listPets');
    const capped = await admission.admit(CUSTOMER, '', 'listPets');
    expect([capped.slot?.granted, capped.credit]).toEqual([false, undefined]);
    await held.slot!.release();
    for (let i = 0; i < 2; i++) await (await admission.admit(CUSTOMER, '', 'listPets')).slot!.release();
    const limited = await admission.admit(CUSTOMER, '', 'listPets');
    expect([limited.decision.verdict, limited.credit]).toEqual(['rate_limited', undefined]);
    expect(balance()).toBe(2);
  });

  it('refuses a request costing more than the balance, giving back its quota units and its slot, and a refund returns the units', async () => {
    const { admission, slots, quotas, balance } = await funded();
    const first = await admission.admit(CUSTOMER, '', 'createPet');
    await first.slot!.release();
    const refused = await admission.admit(CUSTOMER, '', 'createPet');
    expect(refused.credit).toMatchObject({ granted: false, units: 3, balance: 2, refillAt: undefined });
    expect(refused.slot).toBeUndefined();
    expect(slots.inFlight(keySubject(CUSTOMER))).toBe(0);
    // One request counted under the minute: the refused one was given back.
    expect(quotas.peek(keySubject(CUSTOMER), refused.policy).remaining).toEqual([2]);
    await first.credit!.refund();
    expect(balance()).toBe(5);
  });
});
