import { describe, expect, it } from 'vitest';
import { readLimitFlags, readOverridesJson } from '../../src/domain/keys/key-overrides.js';
import { editOverrides, NO_OVERRIDE_EDITS, smallestLimitOf } from '../../src/domain/quota/override-edits.js';
import { STANDARD_PLANS, type Plan } from '../../src/domain/quota/plan.js';
import { overridesOfRecord, withOverrides } from '../../src/domain/quota/rule-overrides.js';

const GITHUB: Plan = {
  name: 'github',
  rules: [
    { name: 'minute', limit: 100, windowMs: 60_000 },
    { name: 'search', limit: 10, windowMs: 90_000, match: ['listPets'], cost: { listPets: 3, default: 1 } },
    { name: 'burst', limit: 5, windowMs: 1_020, mode: 'shadow' },
  ],
};

describe('withOverrides', () => {
  it('is the very plan when nothing is overridden: a key without overrides shares its plan\'s memoized policy', () => {
    expect(withOverrides(GITHUB, undefined)).toBe(GITHUB);
    expect(withOverrides(GITHUB, {})).toBe(GITHUB);
    expect(withOverrides(GITHUB, { week: { limit: 5 } })).toBe(GITHUB);
  });

  it('changes the limit, and the mode when given, of each rule named; window, match and cost stay the plan\'s', () => {
    const plan = withOverrides(GITHUB, { search: { limit: 40 }, burst: { limit: 9, mode: 'enforce' } });
    expect(plan).toEqual({
      name: 'github',
      rules: [GITHUB.rules[0], { ...GITHUB.rules[1], limit: 40 }, { name: 'burst', limit: 9, windowMs: 1_020, mode: 'enforce' }],
    });
    expect(Object.isFrozen(plan) && Object.isFrozen(plan.rules) && Object.isFrozen(plan.rules[1])).toBe(true);
    expect(plan.rules[0]).toBe(GITHUB.rules[0]);
  });
});

describe('editOverrides', () => {
  it('sets, replaces and unsets, keeping the others, in the plan\'s order', () => {
    const current = { burst: { limit: 7 }, minute: { limit: 500 } };
    expect(editOverrides(GITHUB, current, { set: { search: { limit: 30 }, burst: { limit: 8, mode: 'enforce' } }, unset: ['minute'] })).toEqual({
      ok: true,
      value: { search: { limit: 30 }, burst: { limit: 8, mode: 'enforce' } },
    });
    expect(editOverrides(GITHUB, current, NO_OVERRIDE_EDITS)).toEqual({ ok: true, value: { minute: { limit: 500 }, burst: { limit: 7 } } });
    // Unsetting a rule the key does not override changes nothing.
    expect(editOverrides(GITHUB, undefined, { set: {}, unset: ['search'] })).toEqual({ ok: true, value: {} });
  });

  it('refuses a rule the plan has not (set, unset, or kept through a change of plan), a limit below the rule\'s largest cost, and shadowing every rule over every request', () => {
    const problem = (plan: Plan, current: Parameters<typeof editOverrides>[1], edits: Parameters<typeof editOverrides>[2]) => {
      const edited = editOverrides(plan, current, edits);
      return edited.ok ? undefined : { ...edited.error, plan: edited.error.plan.name };
    };
    expect(problem(GITHUB, undefined, { set: { serch: { limit: 5 } }, unset: [] })).toEqual({ kind: 'unknown_rule', rule: 'serch', source: 'set', plan: 'github' });
    expect(problem(GITHUB, undefined, { set: {}, unset: ['serch'] })).toEqual({ kind: 'unknown_rule', rule: 'serch', source: 'unset', plan: 'github' });
    expect(problem(STANDARD_PLANS.pro, { search: { limit: 5 } }, NO_OVERRIDE_EDITS)).toEqual({ kind: 'unknown_rule', rule: 'search', source: 'kept', plan: 'pro' });
    expect(problem(GITHUB, undefined, { set: { search: { limit: 2 } }, unset: [] })).toEqual({
      kind: 'limit_out_of_range',
      rule: 'search',
      source: 'set',
      limit: 2,
      min: 3,
      max: 0xffff_ffff,
      plan: 'github',
    });
    expect(problem(GITHUB, undefined, { set: { minute: { limit: 2 ** 32 } }, unset: [] })).toMatchObject({ kind: 'limit_out_of_range', min: 1 });
    expect(problem(GITHUB, undefined, { set: { minute: { limit: 5, mode: 'shadow' } }, unset: [] })).toEqual({ kind: 'no_enforced_rule', plan: 'github' });
    expect(problem(GITHUB, undefined, { set: { ['__proto__']: { limit: 5 } } as never, unset: [] })).toMatchObject({ kind: 'unknown_rule', rule: '__proto__' });
  });

  it('takes a limit from the rule\'s largest cost (1 without one) to 4294967295', () => {
    expect(GITHUB.rules.map(smallestLimitOf)).toEqual([1, 3, 1]);
    expect(smallestLimitOf({ name: 'x', limit: 9, windowMs: 60_000, cost: 4 })).toBe(4);
    expect(smallestLimitOf({ name: 'x', limit: 9, windowMs: 60_000, cost: { getPet: 2 } })).toBe(2);
  });

  it("takes a burst rule's limit only as far as its capacity (limit × windowMs) stays an exact integer", () => {
    const yearBucket: Plan = { name: 'yearly', rules: [{ name: 'minute', limit: 60, windowMs: 60_000 }, { name: 'bucket', kind: 'burst', limit: 10, windowMs: 31_536_000_000 }] };
    const largest = Math.floor(Number.MAX_SAFE_INTEGER / 31_536_000_000);
    expect(editOverrides(yearBucket, undefined, { set: { bucket: { limit: largest } }, unset: [] })).toMatchObject({ ok: true });
    expect(editOverrides(yearBucket, undefined, { set: { bucket: { limit: largest + 1 } }, unset: [] })).toMatchObject({
      ok: false,
      error: { kind: 'limit_out_of_range', min: 1, max: largest },
    });
  });
});

describe('the readers of overrides', () => {
  it('read --limit and --unset-limit into the same edits as the JSON, names such as __proto__ kept as given', () => {
    const fromFlags = readLimitFlags(['search=60', 'burst=5:shadow', '__proto__=1'], ['minute'], (name) => `--${name}`);
    const fromJson = readOverridesJson(JSON.parse('{"search":{"limit":60},"burst":{"limit":5,"mode":"shadow"},"__proto__":{"limit":1},"minute":null}'), true);
    expect(fromFlags).toEqual(fromJson);
    expect(fromFlags.ok && Object.keys(fromFlags.value?.set ?? {})).toEqual(['search', 'burst', '__proto__']);
    expect(readLimitFlags([], [], (name) => name)).toEqual({ ok: true, value: undefined });
  });

  it('read stored overrides back; null, absent or {} are none, anything else is not overrides', () => {
    expect(overridesOfRecord({ search: { limit: 5, mode: 'shadow' } })).toEqual({ search: { limit: 5, mode: 'shadow' } });
    for (const none of [null, undefined, {}]) expect(overridesOfRecord(none)).toBeUndefined();
    for (const bad of [[], 5, { search: 5 }, { search: { limit: '5' } }, { search: { limit: 5, mode: 'strict' } }]) expect(overridesOfRecord(bad), JSON.stringify(bad)).toBe(false);
  });
});
