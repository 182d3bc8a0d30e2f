import { describe, expect, it } from 'vitest';
import { planOfRecord, planRecord } from '../../src/domain/quota/plan-record.js';
import { costsOf, isUniformPlan } from '../../src/domain/quota/plan-rules.js';
import { planRefundsOf, refundUnits, statusesOf } from '../../src/domain/quota/rule-refunds.js';
import { enterprisePlan, STANDARD_PLANS, type Plan } from '../../src/domain/quota/plan.js';

const WRITES: Plan = {
  name: 'writes',
  rules: [
    { name: 'minute', limit: 100, windowMs: 60_000 },
    { name: 'search', limit: 10, windowMs: 60_000, match: ['listPets', 'listOrders'], cost: 2 },
    { name: 'writes', limit: 50, windowMs: 3_600_000, match: ['placeOrder', 'createPet'], cost: { placeOrder: 5, default: 3 }, mode: 'shadow' },
    { name: 'weighed', limit: 500, windowMs: 86_400_000, cost: { createPet: 4 }, refund: ['5xx', '404'] },
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
  it('round-trips a plan of rules with kind, match, cost, mode and refund through JSON', () => {
    const read = planOfRecord(JSON.parse(JSON.stringify(planRecord(WRITES))));
    expect(read).toEqual(WRITES);
    expect(Object.isFrozen(read?.rules[2]?.match)).toBe(true);
    expect(Object.isFrozen(read?.rules[3]?.refund)).toBe(true);
  });

  it('round-trips a plan with a concurrency cap, kept beside its rules', () => {
    const capped: Plan = { ...WRITES, concurrency: { name: 'inflight', limit: 10, match: ['createPet'] } };
    const read = planOfRecord(JSON.parse(JSON.stringify(planRecord(capped))));
    expect(read).toEqual(capped);
    expect(Object.isFrozen(read?.concurrency)).toBe(true);
  });

  it('round-trips a plan with credits, monthly or by a fixed period, kept beside its rules', () => {
    for (const credits of [
      { name: 'monthly', credits: 10_000, refill: 'month', cost: { createPet: 5, default: 1 }, refund: ['5xx'] },
      { name: 'weekly', credits: 500, initial: 50, refill: 604_800_000, match: ['listPets'] },
      { name: 'one-off', credits: 30 },
    ] as const) {
      const funded: Plan = { ...WRITES, credits };
      const read = planOfRecord(JSON.parse(JSON.stringify(planRecord(funded))));
      expect(read).toEqual(funded);
      expect(Object.isFrozen(read?.credits)).toBe(true);
    }
    expect(planOfRecord({ ...planRecord(WRITES), credits: { name: 'c', credits: 5, refill: 'week' } })).toBeUndefined();
    expect(planOfRecord({ ...planRecord(WRITES), credits: { name: 'c', credits: '5' } })).toBeUndefined();
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
      { name: 'x', rules: [{ name: 'm', limit: 1, windowMs: 60_000, refund: '5xx' }] },
      { name: 'x', rules: [{ name: 'm', limit: 1, windowMs: 60_000, refund: ['6xx'] }] },
      { name: 'x', rules: [{ name: 'm', limit: 1, windowMs: 60_000 }], concurrency: { name: 'c', limit: '2' } },
    ]) {
      expect(planOfRecord(record)).toBeUndefined();
    }
  });
});

describe('refunds', () => {
  it('reads an answer class as its hundred statuses and a status as itself, and nothing else as either', () => {
    expect(statusesOf('5xx')).toEqual(Array.from({ length: 100 }, (_, i) => 500 + i));
    expect(statusesOf('1xx')[0]).toBe(100);
    expect(statusesOf('404')).toEqual([404]);
    for (const text of ['6xx', '0xx', '5XX', 'xx', '099', '600', '42', '4040', ' 404', '']) expect(statusesOf(text), text).toEqual([]);
  });

  it('gives a plan without a refunding rule nothing to carry', () => {
    expect(planRefundsOf(STANDARD_PLANS.free.rules)).toBeUndefined();
  });

  it('gives back what the request spent under each rule refunding its answer, 0 under the others, and nothing when no rule does', () => {
    const plan: Plan = {
      name: 'refunds',
      rules: [
        { name: 'all', limit: 100, windowMs: 60_000, refund: ['5xx'] },
        { name: 'search', limit: 10, windowMs: 60_000, match: ['listPets'], cost: 3, refund: ['5xx', '404'] },
        { name: 'day', limit: 1000, windowMs: 86_400_000 },
      ],
    };
    const refunds = planRefundsOf(plan.rules)!;
    expect(refundUnits(refunds, costsOf(plan, 'listPets'), 503)).toEqual([1, 3, 0]);
    expect(refundUnits(refunds, costsOf(plan, 'listPets'), 404)).toEqual([0, 3, 0]);
    // getPet does not match the search rule: a 404 of it spent nothing there to give back.
    expect(refundUnits(refunds, costsOf(plan, 'getPet'), 404)).toBeUndefined();
    expect(refundUnits(refunds, costsOf(plan, 'getPet'), 500)).toEqual([1, 0, 0]);
    for (const status of [200, 201, 400, 429, 499, 600]) expect(refundUnits(refunds, costsOf(plan, 'listPets'), status), String(status)).toBeUndefined();
    // One cost for every rule (a uniform plan's 1).
    expect(refundUnits(refunds, 1, 500)).toEqual([1, 1, 0]);
  });
});
