import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseKeysArgs } from '../../src/app/cli/keys-command.js';
import { loadConfig } from '../../src/app/config/config.js';
import { MAX_RULE_LIMIT } from '../../src/domain/quota/decidable-policy.js';
import { parsePlan } from '../../src/domain/quota/plan-parser.js';
import { enterprisePlan, PLAN_NAMES, STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { runs } from '../support/property-runs.js';

/** Limits around every boundary: zero, signs, exponents, padding, the largest counter and past it. */
const limitText = fc.oneof(
  fc.integer({ min: 0, max: 10_000 }).map(String),
  fc.constantFrom('', '0', '01', '1', '-1', '+5', '1e3', '1.0', ' 5', '5 ', '0x10', '٣', String(MAX_RULE_LIMIT), String(MAX_RULE_LIMIT + 1), '9'.repeat(17)),
  fc.stringMatching(/^[0-9]{1,12}$/),
);
const planName = fc.oneof(fc.constantFrom<string>(...PLAN_NAMES), fc.constantFrom('Free', 'gold', '', 'enterprise ', 'constructor', '__proto__'));

const configPlan = (name: string, perMinute?: string, perDay?: string): unknown => {
  // The role field last: the configuration trims whitespace around an entry, not inside it.
  const fields = ['config-key-1', name, ...(perMinute === undefined ? [] : [perMinute]), ...(perDay === undefined ? [] : [perDay]), 'customer'];
  const loaded = loadConfig({ PETSTORE_API_KEYS: fields.join(':') });
  return loaded.ok ? loaded.value.apiKeys[0]?.plan : 'refused';
};

const cliPlan = (name: string, perMinute?: string, perDay?: string): unknown => {
  const argv = ['create', `--plan=${name}`, ...(perMinute === undefined ? [] : [`--per-minute=${perMinute}`]), ...(perDay === undefined ? [] : [`--per-day=${perDay}`])];
  const parsed = parseKeysArgs(argv, {});
  return parsed.ok && parsed.value.action.kind === 'create' ? parsed.value.action.key.plan : 'refused';
};

describe('one plan parser for PETSTORE_API_KEYS and petstore keys create', () => {
  it('reads the standard plans by name, and enterprise only with two whole limits from 1 to the largest counter', () => {
    for (const name of ['free', 'pro', 'business'] as const) expect(parsePlan({ name })).toEqual({ ok: true, value: STANDARD_PLANS[name] });
    expect(parsePlan({ name: 'enterprise', perMinute: '100', perDay: String(MAX_RULE_LIMIT) })).toEqual({ ok: true, value: enterprisePlan(100, MAX_RULE_LIMIT) });
    expect(parsePlan({ name: 'enterprise', perMinute: '100' })).toEqual({ ok: false, error: { kind: 'limit_not_whole', limit: 'perDay' } });
    expect(parsePlan({ name: 'enterprise', perMinute: '0', perDay: '5' })).toEqual({ ok: false, error: { kind: 'limit_not_whole', limit: 'perMinute' } });
    expect(parsePlan({ name: 'enterprise', perMinute: '5', perDay: String(MAX_RULE_LIMIT + 1) })).toEqual({ ok: false, error: { kind: 'limit_too_large', limit: 'perDay' } });
    expect(parsePlan({ name: 'pro', perMinute: '5' })).toEqual({ ok: false, error: { kind: 'limits_not_allowed', plan: 'pro' } });
    expect(parsePlan({ name: 'constructor' })).toEqual({ ok: false, error: { kind: 'unknown_plan' } });
  });

  it('an enterprise plan the configuration accepts is the one the CLI accepts, and each refuses what the other refuses', () => {
    fc.assert(
      fc.property(limitText, limitText, (perMinute, perDay) => {
        expect(configPlan('enterprise', perMinute, perDay)).toEqual(cliPlan('enterprise', perMinute, perDay));
      }),
      { numRuns: runs(3_000) },
    );
  });

  it('a plan named without limits is read alike by the configuration and the CLI', () => {
    fc.assert(
      fc.property(planName, (name) => {
        // An empty PLAN field is a malformed entry for the configuration, an absent flag value for parseArgs: both refuse it.
        expect(configPlan(name)).toEqual(cliPlan(name));
      }),
      { numRuns: runs(500) },
    );
  });
});
