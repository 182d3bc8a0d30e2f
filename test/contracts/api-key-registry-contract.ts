import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enterprisePlan, STANDARD_PLANS, type Plan } from '../../src/domain/quota/plan.js';
import type { ApiKeyRegistry } from '../../src/ports/api-key-registry.js';

export interface ApiKeyRegistryFixture {
  readonly registry: ApiKeyRegistry;
  cleanup(): Promise<void>;
}

export interface ApiKeyRegistryContractOptions {
  /** Runs of the model-based property; each run creates a fresh registry. */
  readonly numRuns?: number;
}

const digestOf = (key: string): string => createHash('sha256').update(key).digest('hex');

const attempt = (mutation: () => void): void => {
  try {
    mutation();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
};

/**
 * The behaviour every ApiKeyRegistry adapter shares. `create` must give a fresh, empty
 * registry and `cleanup` must release it.
 */
export const describeApiKeyRegistryContract = (
  adapterName: string,
  create: () => Promise<ApiKeyRegistryFixture>,
  options: ApiKeyRegistryContractOptions = {},
): void => {
  describe(`${adapterName} fulfils the ApiKeyRegistry contract`, () => {
    let fixture: ApiKeyRegistryFixture;
    let registry: ApiKeyRegistry;

    beforeEach(async () => {
      fixture = await create();
      registry = fixture.registry;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('a digest never registered has no plan', async () => {
      expect(await registry.planOf(digestOf('unknown'))).toBeUndefined();
      await registry.register(digestOf('known'), STANDARD_PLANS.free);
      expect(await registry.planOf(digestOf('unknown'))).toBeUndefined();
      expect(await registry.planOf('')).toBeUndefined();
    });

    it('a registered digest answers its own plan, standard or enterprise', async () => {
      const plans: Record<string, Plan> = {
        free: STANDARD_PLANS.free,
        pro: STANDARD_PLANS.pro,
        business: STANDARD_PLANS.business,
        enterprise: enterprisePlan(5_000, 2_000_000),
      };
      for (const [key, plan] of Object.entries(plans)) await registry.register(digestOf(key), plan);
      for (const [key, plan] of Object.entries(plans)) expect(await registry.planOf(digestOf(key))).toEqual(plan);
    });

    it('registering a digest again replaces its plan', async () => {
      await registry.register(digestOf('k'), STANDARD_PLANS.free);
      await registry.register(digestOf('k'), STANDARD_PLANS.business);
      expect(await registry.planOf(digestOf('k'))).toEqual(STANDARD_PLANS.business);
    });

    it('neither the registered plan nor a returned plan can change what is stored', async () => {
      const plan = {
        name: 'enterprise' as const,
        rules: [
          { name: 'minute', limit: 10, windowMs: 60_000 },
          { name: 'day', limit: 100, windowMs: 86_400_000 },
        ],
      };
      await registry.register(digestOf('k'), plan);
      plan.rules[0] = { name: 'minute', limit: 1, windowMs: 1 };
      const returned = await registry.planOf(digestOf('k'));
      attempt(() => {
        (returned?.rules[1] as { limit: number }).limit = 1;
      });
      attempt(() => {
        (returned?.rules as unknown[]).pop();
      });
      expect(await registry.planOf(digestOf('k'))).toEqual(enterprisePlan(10, 100));
    });

    it('concurrent registrations of many digests are all kept', async () => {
      const keys = Array.from({ length: 100 }, (_, index) => `key-${index}`);
      await Promise.all(keys.map((key, index) => registry.register(digestOf(key), enterprisePlan(index + 1, index + 1_000))));
      for (const [index, key] of keys.entries()) {
        expect(await registry.planOf(digestOf(key))).toEqual(enterprisePlan(index + 1, index + 1_000));
      }
    });

    it('any sequence of registrations answers every lookup like a map of the last plan per digest', async () => {
      const planArb = fc.oneof(
        fc.constantFrom(STANDARD_PLANS.free, STANDARD_PLANS.pro, STANDARD_PLANS.business),
        fc.tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000_000 })).map(([minute, day]) =>
          enterprisePlan(minute, day),
        ),
      );
      const keyArb = fc.constantFrom('a', 'b', 'c', 'd', 'e');
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(keyArb, planArb), { maxLength: 12 }), async (registrations) => {
          const run = await create();
          try {
            const model = new Map<string, Plan>();
            for (const [key, plan] of registrations) {
              await run.registry.register(digestOf(key), plan);
              model.set(key, plan);
            }
            for (const key of ['a', 'b', 'c', 'd', 'e']) expect(await run.registry.planOf(digestOf(key))).toEqual(model.get(key));
          } finally {
            await run.cleanup();
          }
        }),
        { numRuns: options.numRuns ?? 100 },
      );
    });
  });
};
