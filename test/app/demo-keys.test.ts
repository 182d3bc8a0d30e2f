import { describe, expect, it } from 'vitest';
import { apiKeyEntry, loadConfig, type PetStoreConfig } from '../../src/app/config/config.js';
import { demoKeyLines, planLimitsText, withDemoKeys } from '../../src/app/config/demo-keys.js';

const examplePath = (file: string): string => new URL(`../../examples/plans/${file}`, import.meta.url).pathname;

const configOf = (environ: Record<string, string>): PetStoreConfig => {
  const loaded = loadConfig(environ);
  if (!loaded.ok) throw new Error(loaded.error.join('\n'));
  return loaded.value;
};

describe('demo keys', () => {
  it('in development with no key configured: one per built-in plan, one per plan of the file, and a staff key', () => {
    const environ = { PETSTORE_PLANS: examplePath('github-like.json') };
    const { config, demoKeys } = withDemoKeys(configOf(environ));
    expect(demoKeys.map(({ plan, role }) => `${plan.name} ${role}`)).toEqual([
      'free customer',
      'pro customer',
      'business customer',
      'enterprise customer',
      'developer customer',
      'trial customer',
      'pro staff',
    ]);
    expect(config.apiKeys).toBe(demoKeys);
    expect(demoKeys.find((key) => key.plan.name === 'trial')?.plan).toBe(config.plans.get('trial'));
    // A supervisor hands them to its workers as entries, which read back beside the same file.
    const workers = configOf({ ...environ, PETSTORE_API_KEYS: demoKeys.map(apiKeyEntry).join(',') });
    expect(workers.apiKeys.map(({ key, plan, role }) => `${key} ${plan.name} ${role}`)).toEqual(demoKeys.map(({ key, plan, role }) => `${key} ${plan.name} ${role}`));
  });

  it('none outside development or beside configured keys', () => {
    const path = examplePath('mobile.json');
    expect(withDemoKeys(configOf({ PETSTORE_PLANS: path, PETSTORE_ENV: 'test' })).demoKeys).toEqual([]);
    expect(withDemoKeys(configOf({ PETSTORE_PLANS: path, PETSTORE_API_KEYS: 'own-key-123:mobile' })).demoKeys).toEqual([]);
  });

  it('are announced with a built-in plan\'s two limits as always, and a file plan\'s every rule', () => {
    const { demoKeys } = withDemoKeys(configOf({ PETSTORE_PLANS: examplePath('stripe-like.json') }));
    const lines = demoKeyLines(demoKeys);
    const keyOf = (i: number): string => demoKeys[i]!.key;
    expect(lines[0]).toBe(`  free       ${keyOf(0)}  (60/min, 1000/day)`);
    expect(lines[3]).toBe(`  enterprise ${keyOf(3)}  (5000/min, 1000000/day)`);
    expect(lines[4]).toBe(
      `  standard   ${keyOf(4)}  (budget 300/1m cost createPet 5, updatePet 5, placeOrder 5, updateOrder 5, cancelOrder 5, default 1 refund 5xx; ` +
        'orders 20/1m on placeOrder updateOrder cancelOrder refund 5xx; day 100000/1d; ' +
        'writes-next 30/1m on createPet updatePet placeOrder updateOrder cancelOrder shadow)',
    );
    expect(lines[5]).toBe(`  pro staff  ${keyOf(5)}  (300/min, 10000/day)`);
  });

  it('spell each window in the largest unit that divides it, and pad the labels to the widest plan name', () => {
    const { plans } = configOf({ PETSTORE_PLANS: examplePath('mobile.json') });
    // A burst rule: its bucket over the time it refills in.
    expect(planLimitsText(plans.get('mobile')!)).toBe('burst 30/15s bucket; hour 600/1h; day 5000/1d; checkout 3/3m bucket on placeOrder');
    expect(planLimitsText({ name: 'odd', rules: [{ name: 'tick', limit: 2, windowMs: 1_020, cost: 2 }] })).toBe('tick 2/1020ms cost 2');
    // A concurrency cap, last.
    const capped = configOf({ PETSTORE_PLANS: examplePath('concurrency.json') }).plans;
    expect(planLimitsText(capped.get('batch')!)).toBe('minute 600/1m; day 100000/1d; inflight 10 in flight');
    expect(planLimitsText(capped.get('checkout')!)).toBe('minute 120/1m; orders-inflight 2 in flight on placeOrder updateOrder cancelOrder');
    // Credits, last: refilled each month, every fixed period, or once.
    const credited = configOf({ PETSTORE_PLANS: examplePath('credits.json') }).plans;
    expect(planLimitsText(credited.get('metered')!)).toBe('minute 600/1m; monthly 10000 credits a month');
    expect(planLimitsText(credited.get('prepaid')!)).toBe('minute 60/1m; prepaid 500 credits once on listPets getPet createPet');
    const minute = { name: 'minute', limit: 1, windowMs: 60_000 };
    expect(planLimitsText({ name: 'weekly', rules: [minute], credits: { name: 'week', credits: 70, refill: 604_800_000 } })).toBe('minute 1/1m; week 70 credits every 7d');
    const plan = { name: 'a-rather-long-plan', rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }] };
    expect(demoKeyLines([{ key: 'k1', plan, role: 'customer' }, { key: 'k2', plan, role: 'staff' }])).toEqual([
      '  a-rather-long-plan       k1  (minute 1/1m)',
      '  a-rather-long-plan staff k2  (minute 1/1m)',
    ]);
  });
});
