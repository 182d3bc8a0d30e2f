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
 * is an hour and the burst bucket refills one unit an hour, so nothing the test counts expires
 * or refills while it runs. A second plan's bucket refills 20 a second: it admits its burst and
 * never more than its refill since the first request.
 */

// Three keys, each through the whole schedule at once: more requests racing on the same instances.
const KEYS = ['multi-rule-key-1', 'multi-rule-key-2', 'multi-rule-key-3'];
const HOUR = 3_600_000;
const WINDOWS = [
  // Every request: a write spends 2 of it, anything else 1.
  { name: 'all', limit: 40, window: '1h', cost: { createPet: 2, default: 1 } },
  { name: 'writes', limit: 9, window: '1h', match: ['createPet'], cost: 3 },
  { name: 'lookups', limit: 5, window: '1h', match: ['getPet'] },
] as const;
/** Every request, 1 unit: a bucket of 35, one unit back an hour. */
const BURST = { name: 'burst', burst: 35, rate: 1, per: '1h' } as const;
const RULES = [...WINDOWS, BURST];
const PLAN_RULES: readonly PlanRule[] = [
  ...WINDOWS.map(({ window: _window, ...rule }) => ({ ...rule, windowMs: HOUR })),
  { name: BURST.name, limit: BURST.burst, windowMs: BURST.burst * HOUR, kind: 'burst' },
];
const FAST_KEY = 'fast-bucket-key-1';
/** A bucket of 10 refilling 20 a second (completely in 500 ms). */
const FAST = { name: 'fast', burst: 10, rate: 20, per: '1s' } as const;

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
    writeFileSync(plans, JSON.stringify({ plans: { mixed: { rules: RULES }, fast: { rules: [FAST] } } }));
    const environ = {
      PORT: '0',
      PETSTORE_ENV: 'test',
      PETSTORE_LOG_LEVEL: 'silent',
      PETSTORE_STORE: 'redis',
      REDIS_URL: redis.url,
      PETSTORE_REDIS_PREFIX: redis.prefix,
      PETSTORE_PLANS: plans,
      PETSTORE_API_KEYS: [...KEYS.map((key) => `${key}:mixed`), `${FAST_KEY}:fast`].join(','),
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
    // Round 1 over-asks writes (18 units of 9) and lookups (8 of 5) while `all` (at most 30 asked
    // of 40) and the bucket (at most 24 of 35) cannot refuse.
    const first = await send(stores, key, { createPet: 6, getPet: 8, listPets: 10 });
    expect(admittedUnits(first)).toEqual([3 * 2 + 5 + 10, 9, 5, 3 + 5 + 10]);

    // Round 2 over-asks the bucket with 25 lists for its 17 units left (`all` has 19); writes and lookups, full, refuse theirs.
    const second = await send(stores, key, { createPet: 5, getPet: 5, listPets: 25 });
    expect(second.filter((outcome) => outcome.admitted).map((outcome) => outcome.operation)).toEqual(Array<Operation>(17).fill('listPets'));

    const outcomes = [...first, ...second];
    const units = admittedUnits(outcomes);
    expect(units).toEqual([38, 9, 5, 35]);
    // Counts only grow within the hour (the bucket gets no unit back), so a rule that had no room for a refused request has none at the end either.
    for (const { operation } of outcomes.filter((outcome) => !outcome.admitted)) {
      const exhausted = PLAN_RULES.filter((rule, i) => ruleCostOf(rule, operation) > 0 && units[i]! + ruleCostOf(rule, operation) > rule.limit);
      expect(exhausted.length, `a refused ${operation} had a rule without room`).toBeGreaterThan(0);
    }
  };

  it('admits no unit over any rule, refuses only on an exhausted rule, and fills each rule the schedule over-asks exactly, the burst bucket included', async () => {
    await Promise.all(KEYS.map(scheduleOf));
  });

  it('a bucket refilling 20 a second admits its burst of 10 at once and, over d ms, never more than 10 + floor(d * 20 / 1000)', async () => {
    const started = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => {
        const response = await fetch(`${stores[i % stores.length]!.baseUrl}/pets/1`, { headers: { authorization: `Bearer ${FAST_KEY}` } });
        await response.arrayBuffer();
        return response.status !== 429;
      }),
    );
    // Redis decided every request between these two moments of the same host's clock.
    const elapsed = Date.now() - started;
    const admitted = outcomes.filter(Boolean).length;
    expect(admitted).toBeGreaterThanOrEqual(FAST.burst);
    expect(admitted).toBeLessThanOrEqual(FAST.burst + Math.floor((elapsed * FAST.rate) / 1000));
  });
});
