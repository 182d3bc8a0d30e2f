import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { ruleCostOf, type PlanRule } from '../../src/domain/quota/plan-rules.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

/*
 * Three instances on one Redis, one key on a file plan of several rules with costs, a mixed
 * concurrent schedule: from the answers alone, no rule ever admits more units than its limit,
 * and a request is refused only when a rule it matches has no room for its cost. Every window
 * is an hour, so nothing the test counts expires while it runs.
 */

// Three keys, each through the whole schedule at once: more requests racing on the same instances.
const KEYS = ['multi-rule-key-1', 'multi-rule-key-2', 'multi-rule-key-3'];
const RULES = [
  // Every request: a write spends 2 of it, anything else 1.
  { name: 'all', limit: 40, window: '1h', cost: { createPet: 2, default: 1 } },
  { name: 'writes', limit: 9, window: '1h', match: ['createPet'], cost: 3 },
  { name: 'lookups', limit: 5, window: '1h', match: ['getPet'] },
] as const;
const PLAN_RULES: readonly PlanRule[] = RULES.map(({ window: _window, ...rule }) => ({ ...rule, windowMs: 3_600_000 }));

type Operation = 'listPets' | 'getPet' | 'createPet';
const REQUESTS: Record<Operation, { readonly method: string; readonly path: string; readonly body?: string }> = {
  listPets: { method: 'GET', path: '/pets?limit=1' },
  getPet: { method: 'GET', path: '/pets/1' },
  createPet: { method: 'POST', path: '/pets', body: JSON.stringify({ name: 'Rex', categoryId: 1 }) },
};

interface Outcome {
  readonly operation: Operation;
  readonly admitted: boolean;
}

/** `counts` of each operation, interleaved (so every instance sees every kind), sent at once, round robin over `stores`. */
async function send(stores: readonly RunningPetStore[], key: string, counts: Record<Operation, number>): Promise<Outcome[]> {
  const left = { ...counts };
  const schedule: Operation[] = [];
  while (Object.values(left).some((n) => n > 0)) {
    for (const operation of Object.keys(left) as Operation[]) {
      if (left[operation] > 0) {
        schedule.push(operation);
        left[operation]--;
      }
    }
  }
  return Promise.all(
    schedule.map(async (operation, i) => {
      const { method, path, body } = REQUESTS[operation];
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
      const response = await fetch(`${stores[i % stores.length]!.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
      await response.arrayBuffer();
      // getPet may find no pet yet (404): admitted all the same, the quota is decided first.
      expect([200, 201, 404, 429]).toContain(response.status);
      return { operation, admitted: response.status !== 429 };
    }),
  );
}

/** Units each rule admitted over `outcomes`, by the plan's costs. */
const admittedUnits = (outcomes: readonly Outcome[]): number[] =>
  PLAN_RULES.map((rule) => outcomes.filter((outcome) => outcome.admitted).reduce((units, { operation }) => units + ruleCostOf(rule, operation), 0));

describe('plan rules across three instances on one Redis', () => {
  let redis: TestRedis;
  let dir: string;
  const stores: RunningPetStore[] = [];

  beforeAll(async () => {
    redis = await acquireTestRedis();
    dir = mkdtempSync(join(tmpdir(), 'plans-multi-'));
    const plans = join(dir, 'plans.json');
    writeFileSync(plans, JSON.stringify({ plans: { mixed: { rules: RULES } } }));
    const environ = {
      PORT: '0',
      PETSTORE_ENV: 'test',
      PETSTORE_LOG_LEVEL: 'silent',
      PETSTORE_STORE: 'redis',
      REDIS_URL: redis.url,
      PETSTORE_REDIS_PREFIX: redis.prefix,
      PETSTORE_PLANS: plans,
      PETSTORE_API_KEYS: KEYS.map((key) => `${key}:mixed`).join(','),
    };
    for (let i = 0; i < 3; i++) stores.push(await startPetStore(environ));
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close(0, 0)));
    await redis?.cleanup();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** The schedule of one key, in two rounds sent at once each. */
  const scheduleOf = async (key: string): Promise<void> => {
    // Round 1 over-asks writes (18 units of 9) and lookups (8 of 5) while `all` (at most 30 asked of 40) cannot refuse.
    const first = await send(stores, key, { createPet: 6, getPet: 8, listPets: 10 });
    expect(admittedUnits(first)).toEqual([3 * 2 + 5 + 10, 9, 5]);

    // Round 2 over-asks `all` with 25 lists for its 19 units left; writes and lookups, full, refuse theirs.
    const second = await send(stores, key, { createPet: 5, getPet: 5, listPets: 25 });
    expect(second.filter((outcome) => outcome.admitted).map((outcome) => outcome.operation)).toEqual(Array<Operation>(19).fill('listPets'));

    const outcomes = [...first, ...second];
    const units = admittedUnits(outcomes);
    expect(units).toEqual(PLAN_RULES.map((rule) => rule.limit));
    // Counts only grow within the hour, so a rule that had no room for a refused request has none at the end either.
    for (const { operation } of outcomes.filter((outcome) => !outcome.admitted)) {
      const exhausted = PLAN_RULES.filter((rule, i) => ruleCostOf(rule, operation) > 0 && units[i]! + ruleCostOf(rule, operation) > rule.limit);
      expect(exhausted.length, `a refused ${operation} had a rule without room`).toBeGreaterThan(0);
    }
  };

  it('admits no unit over any rule, refuses only on an exhausted rule, and fills each rule the schedule over-asks exactly', async () => {
    await Promise.all(KEYS.map(scheduleOf));
  });
});
