import { describe, expect, it } from 'vitest';
import { planOfRecord, planRecord } from '../../src/domain/quota/plan-record.js';
import { costsOf, isUniformPlan } from '../../src/domain/quota/plan-rules.js';
import { enterprisePlan, STANDARD_PLANS, type Plan } from '../../src/domain/quota/plan.js';

const WRITES: Plan = {
  name: 'writes',
  rules: [
    { name: 'minute', limit: 100, windowMs: 60_000 },
    { name: 'search', limit: 10, windowMs: 60_000, match: ['listPets', 'listOrders'], cost: 2 },
    { name: 'writes', limit: 50, windowMs: 3_600_000, match: ['placeOrder', 'createPet'], cost: { placeOrder: 5, default: 3 }, mode: 'shadow' },
    { name: 'weighed', limit: 500, windowMs: 86_400_000, cost: { createPet: 4 } },
    { name: 'burst', limit: 20, windowMs: 2_500, kind: 'burst', match: ['listPets'] },
  ],
};

describe('costsOf', () => {
  it('charges each rule its cost for the operations it matches, 0 for the others', () => {
    expect(costsOf(WRITES, 'listPets')).toEqual([1, 2, 0, 1, 1]);
    expect(costsOf(WRITES, 'placeOrder')).toEqual([1, 0, 5, 1, 0]);
    expect(costsOf(WRITES, 'createPet')).toEqual([1, 0, 3, 4, 0]);
    expect(costsOf(WRITES, 'getPet')).toEqual([1, 0, 0, 1, 0]);
  });

  it('charges a request no operation was routed for (404, 405) under the rules without a match only, at their default', () => {
    expect(costsOf(WRITES, undefined)).toEqual([1, 0, 0, 1, 0]);
  });

  it('reads only own per-operation costs: an operationId named like an Object method costs the default', () => {
    expect(costsOf(WRITES, 'constructor')).toEqual([1, 0, 0, 1, 0]);
    expect(costsOf(WRITES, 'default')).toEqual([1, 0, 0, 1, 0]);
  });

  it('calls today\'s plans uniform, so admission decides them with the plain cost 1', () => {
    for (const plan of [STANDARD_PLANS.free, STANDARD_PLANS.pro, STANDARD_PLANS.business, enterprisePlan(5, 10)]) expect(isUniformPlan(plan)).toBe(true);
    expect(isUniformPlan(WRITES)).toBe(false);
    const shadowed: Plan = { name: 'shadowed', rules: [{ name: 'minute', limit: 1, windowMs: 60_000, mode: 'shadow' }] };
    expect(isUniformPlan(shadowed)).toBe(false);
  });
});

describe('plan records', () => {
  it('round-trips a plan of rules with kind, match, cost and mode through JSON', () => {
    const read = planOfRecord(JSON.parse(JSON.stringify(planRecord(WRITES))));
    expect(read).toEqual(WRITES);
    expect(Object.isFrozen(read?.rules[2]?.match)).toBe(true);
  });

  it('round-trips a plan with a concurrency cap, kept beside its rules', () => {
    const capped: Plan = { ...WRITES, concurrency: { name: 'inflight', limit: 10, match: ['createPet'] } };
    const read = planOfRecord(JSON.parse(JSON.stringify(planRecord(capped))));
    expect(read).toEqual(capped);
    expect(Object.isFrozen(read?.concurrency)).toBe(true);
  });

  it('writes today\'s plans exactly as before and reads records written before rules had a mode, match or cost', () => {
    expect(planRecord(STANDARD_PLANS.pro)).toEqual({
      name: 'pro',
      rules: [
        { name: 'minute', limit: 300, windowMs: 60_000 },
        { name: 'day', limit: 10_000, windowMs: 86_400_000 },
      ],
    });
    const old = '{"name":"business","rules":[{"name":"minute","limit":1000,"windowMs":60000},{"name":"day","limit":100000,"windowMs":86400000}]}';
    expect(planOfRecord(JSON.parse(old))).toEqual(STANDARD_PLANS.business);
  });

  it('refuses a record that is not a plan', () => {
    for (const record of [
      null,
      { name: '', rules: [] },
      { name: 'x', rules: [{ name: 'm', limit: '1', windowMs: 60_000 }] },
      { name: 'x', rules: [{ name: 'm', limit: 1, windowMs: 60_000, mode: 'dry' }] },
      { name: 'x', rules: [{ name: 'm', limit: 1, windowMs: 60_000, kind: 'bucket' }] },
      { name: 'x', rules: [{ name: 'm', limit: 1, windowMs: 60_000, match: 'listPets' }] },
      { name: 'x', rules: [{ name: 'm', limit: 1, windowMs: 60_000, cost: { listPets: '2' } }] },
      { name: 'x', rules: [{ name: 'm', limit: 1, windowMs: 60_000 }], concurrency: { name: 'c', limit: '2' } },
    ]) {
      expect(planOfRecord(record)).toBeUndefined();
    }
  });
});
