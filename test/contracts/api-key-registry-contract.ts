import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../src/domain/access/caller.js';
import { enterprisePlan, STANDARD_PLANS, type Plan } from '../../src/domain/quota/plan.js';
import type { PlanRule } from '../../src/domain/quota/plan-rules.js';
import { holderOf, type ApiKeyGrant, type ApiKeyRegistry, type KeyAdmin, type ManagedApiKey } from '../../src/ports/api-key-registry.js';
import type { Clock } from '../../src/ports/clock.js';
import { ManualClock } from '../support/manual-clock.js';
import { runs } from '../support/property-runs.js';

export interface ApiKeyRegistryFixture {
  readonly registry: ApiKeyRegistry;
  cleanup(): Promise<void>;
}

export interface ApiKeyRegistryContractOptions {
  /** Runs of the model-based property; each run creates a fresh registry. */
  readonly numRuns?: number;
  /** How long the model-based property may take: longer where each run creates and migrates a database schema. */
  readonly propertyTimeoutMs?: number;
}

const digestOf = (key: string): string => createHash('sha256').update(key).digest('hex');

const customer = (plan: Plan): ApiKeyGrant => ({ plan, role: 'customer' });
const staff = (plan: Plan): ApiKeyGrant => ({ plan, role: 'staff' });

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

    it('a digest never registered has no grant', async () => {
      expect(await registry.grantOf(digestOf('unknown'))).toBeUndefined();
      await registry.register(digestOf('known'), customer(STANDARD_PLANS.free));
      expect(await registry.grantOf(digestOf('unknown'))).toBeUndefined();
      expect(await registry.grantOf('')).toBeUndefined();
    });

    it('a registered digest answers its own plan, standard or enterprise', async () => {
      const plans: Record<string, Plan> = {
        free: STANDARD_PLANS.free,
        pro: STANDARD_PLANS.pro,
        business: STANDARD_PLANS.business,
        enterprise: enterprisePlan(5_000, 2_000_000),
      };
      for (const [key, plan] of Object.entries(plans)) await registry.register(digestOf(key), customer(plan));
      for (const [key, plan] of Object.entries(plans)) expect(await registry.grantOf(digestOf(key))).toEqual(customer(plan));
    });

    it('a registered digest answers its own role, customer or staff, whatever the plan', async () => {
      await registry.register(digestOf('customer'), customer(STANDARD_PLANS.pro));
      await registry.register(digestOf('staff'), staff(STANDARD_PLANS.pro));
      await registry.register(digestOf('enterprise staff'), staff(enterprisePlan(100, 1_000)));
      expect(await registry.grantOf(digestOf('customer'))).toEqual({ plan: STANDARD_PLANS.pro, role: 'customer' });
      expect(await registry.grantOf(digestOf('staff'))).toEqual({ plan: STANDARD_PLANS.pro, role: 'staff' });
      expect(await registry.grantOf(digestOf('enterprise staff'))).toEqual({ plan: enterprisePlan(100, 1_000), role: 'staff' });
    });

    it('registering a digest again replaces its plan and its role: staff registered again as a customer is a customer', async () => {
      await registry.register(digestOf('k'), staff(STANDARD_PLANS.free));
      await registry.register(digestOf('k'), customer(STANDARD_PLANS.business));
      expect(await registry.grantOf(digestOf('k'))).toEqual(customer(STANDARD_PLANS.business));
    });

    it('neither the registered grant nor a returned grant can change what is stored', async () => {
      const plan = {
        name: 'enterprise' as const,
        rules: [
          { name: 'minute', limit: 10, windowMs: 60_000 },
          { name: 'day', limit: 100, windowMs: 86_400_000 },
        ],
      };
      const grant: { plan: Plan; role: Role } = { plan, role: 'customer' };
      await registry.register(digestOf('k'), grant);
      plan.rules[0] = { name: 'minute', limit: 1, windowMs: 1 };
      grant.role = 'staff';
      const returned = await registry.grantOf(digestOf('k'));
      attempt(() => {
        (returned?.plan.rules[1] as { limit: number }).limit = 1;
      });
      attempt(() => {
        (returned?.plan.rules as unknown[]).pop();
      });
      attempt(() => {
        (returned as { role: string }).role = 'staff';
      });
      expect(await registry.grantOf(digestOf('k'))).toEqual(customer(enterprisePlan(10, 100)));
    });

    it('concurrent registrations of many digests are all kept', async () => {
      const keys = Array.from({ length: 100 }, (_, index) => `key-${index}`);
      const grantAt = (index: number): ApiKeyGrant => ({
        plan: enterprisePlan(index + 1, index + 1_000),
        role: index % 2 === 0 ? 'customer' : 'staff',
      });
      await Promise.all(keys.map((key, index) => registry.register(digestOf(key), grantAt(index))));
      for (const [index, key] of keys.entries()) expect(await registry.grantOf(digestOf(key))).toEqual(grantAt(index));
    });

    it('any sequence of registrations answers every lookup like a map of the last grant per digest', async () => {
      const planArb = fc.oneof(
        fc.constantFrom(STANDARD_PLANS.free, STANDARD_PLANS.pro, STANDARD_PLANS.business),
        fc.tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000_000 })).map(([minute, day]) =>
          enterprisePlan(minute, day),
        ),
      );
      const grantArb = fc.record({ plan: planArb, role: fc.constantFrom(...ROLES) });
      const keyArb = fc.constantFrom('a', 'b', 'c', 'd', 'e');
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(keyArb, grantArb), { maxLength: 12 }), async (registrations) => {
          const run = await create();
          try {
            const model = new Map<string, ApiKeyGrant>();
            for (const [key, grant] of registrations) {
              await run.registry.register(digestOf(key), grant);
              model.set(key, grant);
            }
            for (const key of ['a', 'b', 'c', 'd', 'e']) expect(await run.registry.grantOf(digestOf(key))).toEqual(model.get(key));
          } finally {
            await run.cleanup();
          }
        }),
        { numRuns: options.numRuns ?? runs(100) },
      );
    }, options.propertyTimeoutMs);
  });
};

export interface KeyAdminFixture {
  readonly registry: ApiKeyRegistry & KeyAdmin;
  cleanup(): Promise<void>;
}

const managed = (id: string, createdAt: number, fields: Partial<ManagedApiKey> = {}): ManagedApiKey => ({
  id,
  label: `label of ${id}`,
  plan: STANDARD_PLANS.pro,
  role: 'customer',
  createdAt,
  ...fields,
});

const MINUTE_100: PlanRule = { name: 'minute', limit: 100, windowMs: 60_000 };
const SEARCH: PlanRule = { name: 'search', limit: 10, windowMs: 90_000, match: ['listPets'], cost: { listPets: 2, default: 1 } };
const BURST: PlanRule = { name: 'burst', limit: 5, windowMs: 1_020, mode: 'shadow' };
/** A plans file's plan: a rule over every request, a matched rule with costs, a shadow rule, a concurrency cap and credits beside them. */
const FILE_PLAN: Plan = {
  name: 'github',
  rules: [MINUTE_100, SEARCH, BURST],
  concurrency: { name: 'inflight', limit: 3, match: ['createPet'] },
  credits: { name: 'monthly', credits: 1_000, initial: 100, refill: 'month', match: ['listPets'], cost: 2 },
};
const [PRO_MINUTE, PRO_DAY] = STANDARD_PLANS.pro.rules;
const BUSINESS_DAY = STANDARD_PLANS.business.rules[1]!;

/**
 * The behaviour of registries that also manage keys by id (`petstore keys`). `create` must give
 * a fresh, empty registry whose expiry decisions follow `clock`.
 */
export const describeKeyAdminContract = (adapterName: string, create: (clock: Clock) => Promise<KeyAdminFixture>): void => {
  describe(`${adapterName} fulfils the KeyAdmin contract`, () => {
    let fixture: KeyAdminFixture;
    let registry: ApiKeyRegistry & KeyAdmin;
    let clock: ManualClock;
    const T0 = Date.UTC(2026, 10, 23);

    beforeEach(async () => {
      clock = new ManualClock(T0);
      fixture = await create(clock);
      registry = fixture.registry;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('a created key answers its grant by digest, and is listed and found by id with its label, plan, role, dates and digest', async () => {
      const key = managed('key_a', T0, { plan: enterprisePlan(100, 5_000), role: 'staff', label: 'ci deploys', expiresAt: T0 + 60_000 });
      await registry.createKey(digestOf('secret-a'), key);
      expect(await registry.grantOf(digestOf('secret-a'))).toEqual({ plan: enterprisePlan(100, 5_000), role: 'staff', expiresAt: T0 + 60_000 });
      expect(await registry.listKeys()).toEqual([{ key, digest: digestOf('secret-a') }]);
      expect(await registry.findKey('key_a')).toEqual({ key, digest: digestOf('secret-a') });
      expect(await registry.findKey('key_unknown')).toBeUndefined();
    });

    it('an expiring key has its grant until its expiry and none from then on, and is still listed', async () => {
      await registry.createKey(digestOf('short'), managed('key_short', T0, { expiresAt: T0 + 2_000 }));
      await registry.createKey(digestOf('forever'), managed('key_forever', T0 + 1));
      clock.set(T0 + 1_999);
      expect(await registry.grantOf(digestOf('short'))).toMatchObject({ plan: STANDARD_PLANS.pro });
      clock.set(T0 + 2_000);
      expect(await registry.grantOf(digestOf('short'))).toBeUndefined();
      expect(await registry.grantOf(digestOf('forever'))).toEqual(customer(STANDARD_PLANS.pro));
      expect((await registry.listKeys()).map(({ key }) => key.id)).toEqual(['key_short', 'key_forever']);
    });

    it('a grant registered with an expiry is refused from then on', async () => {
      await registry.register(digestOf('k'), { ...customer(STANDARD_PLANS.free), expiresAt: T0 + 10 });
      expect(await registry.grantOf(digestOf('k'))).toEqual({ ...customer(STANDARD_PLANS.free), expiresAt: T0 + 10 });
      clock.advance(10);
      expect(await registry.grantOf(digestOf('k'))).toBeUndefined();
    });

    it('a revoked key has no grant at once, is listed with its revocation time, and other keys are untouched', async () => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      await registry.createKey(digestOf('b'), managed('key_b', T0 + 1));
      expect(await registry.revokeKey('key_a', T0 + 5)).toBe('revoked');
      expect(await registry.grantOf(digestOf('a'))).toBeUndefined();
      expect(await registry.grantOf(digestOf('b'))).toEqual(customer(STANDARD_PLANS.pro));
      expect((await registry.listKeys()).map(({ key }) => key)).toEqual([managed('key_a', T0, { revokedAt: T0 + 5 }), managed('key_b', T0 + 1)]);
    });

    it('revoking twice says so and keeps the first time; an unknown id is not found', async () => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      expect(await registry.revokeKey('key_a', T0 + 5)).toBe('revoked');
      expect(await registry.revokeKey('key_a', T0 + 9)).toBe('already_revoked');
      expect(await registry.revokeKey('key_unknown', T0 + 9)).toBe('not_found');
      expect((await registry.listKeys())[0]?.key.revokedAt).toBe(T0 + 5);
    });

    it('of concurrent revocations of one key exactly one revokes it', async () => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => registry.revokeKey('key_a', T0 + i)));
      expect(outcomes.filter((outcome) => outcome === 'revoked')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === 'already_revoked')).toHaveLength(9);
    });

    it('lists every managed key oldest first, and only those: keys registered by digest alone are not listed', async () => {
      await registry.register(digestOf('registered'), customer(STANDARD_PLANS.free));
      for (const [index, id] of ['key_3', 'key_1', 'key_2'].entries()) await registry.createKey(digestOf(id), managed(id, T0 + [3, 1, 2][index]!));
      expect((await registry.listKeys()).map(({ key }) => key.id)).toEqual(['key_1', 'key_2', 'key_3']);
      expect(await registry.grantOf(digestOf('registered'))).toEqual(customer(STANDARD_PLANS.free));
    });

    it('refuses a second key under a taken id or digest, and the first keeps working', async () => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      await expect(registry.createKey(digestOf('other'), managed('key_a', T0 + 1, { plan: STANDARD_PLANS.free }))).rejects.toThrow();
      await expect(registry.createKey(digestOf('a'), managed('key_other', T0 + 1))).rejects.toThrow();
      expect(await registry.grantOf(digestOf('a'))).toEqual(customer(STANDARD_PLANS.pro));
      expect(await registry.grantOf(digestOf('other'))).toBeUndefined();
      expect((await registry.listKeys()).map(({ key }) => key.id)).toEqual(['key_a']);
    });

    it('an update changes the grant by digest at once and the listed key, stamped with its time; what it is not given stays', async () => {
      await registry.createKey(digestOf('a'), managed('key_a', T0, { plan: STANDARD_PLANS.free, label: 'before', expiresAt: T0 + 60_000 }));
      await registry.createKey(digestOf('b'), managed('key_b', T0 + 1));
      const updated = managed('key_a', T0, { plan: enterprisePlan(500, 20_000), label: 'before', expiresAt: T0 + 60_000, updatedAt: T0 + 7 });
      expect(await registry.updateKey('key_a', { plan: enterprisePlan(500, 20_000) }, T0 + 7)).toEqual({ updated });
      expect(await registry.grantOf(digestOf('a'))).toEqual({ plan: enterprisePlan(500, 20_000), role: 'customer', expiresAt: T0 + 60_000 });
      expect(await registry.findKey('key_a')).toEqual({ key: updated, digest: digestOf('a') });

      const changes = { plan: STANDARD_PLANS.business, role: 'staff', label: 'after', expiresAt: T0 + 120_000 } as const;
      expect(await registry.updateKey('key_a', changes, T0 + 9)).toEqual({ updated: managed('key_a', T0, { ...changes, updatedAt: T0 + 9 }) });
      expect(await registry.grantOf(digestOf('a'))).toEqual({ plan: STANDARD_PLANS.business, role: 'staff', expiresAt: T0 + 120_000 });
      expect((await registry.listKeys()).map(({ key }) => key)).toEqual([managed('key_a', T0, { ...changes, updatedAt: T0 + 9 }), managed('key_b', T0 + 1)]);
      expect(await registry.grantOf(digestOf('b'))).toEqual(customer(STANDARD_PLANS.pro));
    });

    it('an expired key updated with a later expiry has its grant again', async () => {
      await registry.createKey(digestOf('a'), managed('key_a', T0, { expiresAt: T0 + 1_000 }));
      clock.set(T0 + 5_000);
      expect(await registry.grantOf(digestOf('a'))).toBeUndefined();
      expect(await registry.updateKey('key_a', { expiresAt: T0 + 10_000 }, T0 + 5_000)).toMatchObject({ updated: { expiresAt: T0 + 10_000 } });
      expect(await registry.grantOf(digestOf('a'))).toEqual({ ...customer(STANDARD_PLANS.pro), expiresAt: T0 + 10_000 });
    });

    it('updating an unknown id is not found and a revoked key is refused: nothing changes, the revoked key keeps no grant', async () => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      expect(await registry.updateKey('key_unknown', { plan: STANDARD_PLANS.free }, T0 + 1)).toBe('not_found');
      expect(await registry.revokeKey('key_a', T0 + 2)).toBe('revoked');
      expect(await registry.updateKey('key_a', { plan: STANDARD_PLANS.business, label: 'x' }, T0 + 3)).toBe('revoked');
      expect(await registry.grantOf(digestOf('a'))).toBeUndefined();
      expect(await registry.listKeys()).toEqual([{ key: managed('key_a', T0, { revokedAt: T0 + 2 }), digest: digestOf('a') }]);
    });

    it('of an update and a revocation racing, the key ends revoked with no grant; concurrent updates each apply whole', async () => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      const [updated, revoked] = await Promise.all([registry.updateKey('key_a', { plan: STANDARD_PLANS.business }, T0 + 1), registry.revokeKey('key_a', T0 + 1)]);
      expect(revoked).toBe('revoked');
      // Either order is fine; an update that came second found the key revoked.
      expect(typeof updated === 'object' ? 'updated' : updated).toMatch(/^(updated|revoked)$/);
      expect(await registry.grantOf(digestOf('a'))).toBeUndefined();

      await registry.createKey(digestOf('b'), managed('key_b', T0));
      const plans = [STANDARD_PLANS.free, STANDARD_PLANS.business, enterprisePlan(7, 70)];
      await Promise.all(plans.map((plan, i) => registry.updateKey('key_b', { plan, label: `update ${i}` }, T0 + i)));
      const [final] = await registry.listKeys().then((keys) => keys.filter(({ key }) => key.id === 'key_b'));
      const winner = plans.findIndex((plan) => JSON.stringify(plan) === JSON.stringify(final?.key.plan));
      expect(final?.key.label, 'plan and label from the same update').toBe(`update ${winner}`);
      expect(await registry.grantOf(digestOf('b'))).toEqual(customer(plans[winner]!));
    });

    describe('overrides of rules of a key\'s plan', () => {
      const overrides = { search: { limit: 60 }, burst: { limit: 7, mode: 'enforce' } } as const;

      it('a key created with overrides answers its plan with them applied, and is listed and found with its plan and its overrides apart', async () => {
        const key = managed('key_a', T0, { plan: FILE_PLAN, overrides });
        await registry.createKey(digestOf('a'), key);
        // The cap is kept as it is: overrides change rules only.
        const effective: Plan = { ...FILE_PLAN, rules: [MINUTE_100, { ...SEARCH, limit: 60 }, { ...BURST, limit: 7, mode: 'enforce' }] };
        expect(await registry.grantOf(digestOf('a'))).toEqual(customer(effective));
        expect(await registry.findKey('key_a')).toEqual({ key, digest: digestOf('a') });
        expect(await registry.listKeys()).toEqual([{ key, digest: digestOf('a') }]);
      });

      it('an update sets them whole at once; one that does not name them keeps them, through a change of plan too; {} removes them all', async () => {
        await registry.createKey(digestOf('a'), managed('key_a', T0));
        const minute600 = { minute: { limit: 600 } };
        expect(await registry.updateKey('key_a', { overrides: minute600 }, T0 + 1)).toEqual({ updated: managed('key_a', T0, { overrides: minute600, updatedAt: T0 + 1 }) });
        expect(await registry.grantOf(digestOf('a'))).toEqual(customer({ name: 'pro', rules: [{ ...PRO_MINUTE!, limit: 600 }, PRO_DAY!] }));

        expect(await registry.updateKey('key_a', { label: 'renamed' }, T0 + 2)).toMatchObject({ updated: { overrides: minute600, label: 'renamed' } });
        expect(await registry.updateKey('key_a', { plan: STANDARD_PLANS.business }, T0 + 3)).toMatchObject({ updated: { overrides: minute600 } });
        expect(await registry.grantOf(digestOf('a'))).toEqual(customer({ name: 'business', rules: [{ name: 'minute', limit: 600, windowMs: 60_000 }, BUSINESS_DAY] }));

        const removed = managed('key_a', T0, { plan: STANDARD_PLANS.business, label: 'renamed', updatedAt: T0 + 4 });
        expect(await registry.updateKey('key_a', { overrides: {} }, T0 + 4)).toEqual({ updated: removed });
        expect(await registry.findKey('key_a')).toEqual({ key: removed, digest: digestOf('a') });
        expect((await registry.findKey('key_a'))?.key).not.toHaveProperty('overrides');
        expect(await registry.grantOf(digestOf('a'))).toEqual(customer(STANDARD_PLANS.business));
      });

      it('a rolled key answers its overridden plan by both secrets, and an update of its overrides reaches both', async () => {
        await registry.createKey(digestOf('old'), managed('key_a', T0, { plan: FILE_PLAN, overrides: { search: { limit: 20 } } }));
        await registry.rollKey('key_a', digestOf('new'), T0 + 86_400_000, T0 + 1);
        const searchLimit = async (secret: string): Promise<number | undefined> => (await registry.grantOf(digestOf(secret)))?.plan.rules[1]?.limit;
        expect([await searchLimit('old'), await searchLimit('new')]).toEqual([20, 20]);
        await registry.updateKey('key_a', { overrides: { search: { limit: 30 } } }, T0 + 2);
        expect([await searchLimit('old'), await searchLimit('new')]).toEqual([30, 30]);
        expect(await registry.findKey('key_a')).toMatchObject({ key: { overrides: { search: { limit: 30 } }, plan: FILE_PLAN }, digest: digestOf('old') });
      });

      it('a key without overrides answers its plan as it is: no overrides field, the plan unchanged', async () => {
        await registry.createKey(digestOf('a'), managed('key_a', T0, { plan: FILE_PLAN }));
        expect(await registry.grantOf(digestOf('a'))).toEqual(customer(FILE_PLAN));
        expect((await registry.findKey('key_a'))?.key).not.toHaveProperty('overrides');
      });
    });

    describe('rolling a key', () => {
      const DAY = 86_400_000;
      const [OLD, NEW, NEWER] = [digestOf('old secret'), digestOf('new secret'), digestOf('newer secret')];
      const holderBy = async (digest: string): Promise<string | undefined> => {
        const grant = await registry.grantOf(digest);
        return grant === undefined ? undefined : holderOf(grant, digest);
      };

      it('answers the same grant by the old and the new secret, both known as the key, until the grace ends; then by the new one only', async () => {
        const plan = enterprisePlan(100, 5_000);
        await registry.createKey(OLD, managed('key_a', T0, { plan, role: 'staff', label: 'ci' }));
        await registry.createKey(digestOf('b'), managed('key_b', T0 + 1));
        const rolled = managed('key_a', T0, { plan, role: 'staff', label: 'ci', rolledAt: T0 + 10, previousSecretUntil: T0 + 10 + DAY });
        expect(await registry.rollKey('key_a', NEW, T0 + 10 + DAY, T0 + 10)).toEqual({ rolled });
        expect(await registry.grantOf(NEW)).toEqual({ plan, role: 'staff', holder: OLD });
        expect(await registry.grantOf(OLD)).toEqual({ plan, role: 'staff', expiresAt: T0 + 10 + DAY });
        // Its usage is still read by the digest it was created with.
        expect(await registry.findKey('key_a')).toEqual({ key: rolled, digest: OLD });
        expect(await registry.listKeys()).toEqual([{ key: rolled, digest: OLD }, { key: managed('key_b', T0 + 1), digest: digestOf('b') }]);

        clock.set(T0 + 10 + DAY - 1);
        expect([await holderBy(OLD), await holderBy(NEW)]).toEqual([OLD, OLD]);
        clock.set(T0 + 10 + DAY);
        expect([await holderBy(OLD), await holderBy(NEW)]).toEqual([undefined, OLD]);
        expect(await registry.grantOf(digestOf('b'))).toEqual(customer(STANDARD_PLANS.pro));
      });

      it('with no grace refuses the old secret at once, and records no grace', async () => {
        await registry.createKey(OLD, managed('key_a', T0));
        expect(await registry.rollKey('key_a', NEW, T0 + 5, T0 + 5)).toEqual({ rolled: managed('key_a', T0, { rolledAt: T0 + 5 }) });
        expect(await registry.grantOf(OLD)).toBeUndefined();
        expect(await registry.grantOf(NEW)).toEqual({ ...customer(STANDARD_PLANS.pro), holder: OLD });
        expect(await registry.rollKey('key_a', NEWER, T0, T0 + 6)).toEqual({ rolled: managed('key_a', T0, { rolledAt: T0 + 6 }) });
        expect([await holderBy(OLD), await holderBy(NEW), await holderBy(NEWER)]).toEqual([undefined, undefined, OLD]);
      });

      it('a second roll during the grace ends the oldest secret at once; the key keeps one holder through every roll', async () => {
        await registry.createKey(OLD, managed('key_a', T0));
        await registry.rollKey('key_a', NEW, T0 + DAY, T0);
        expect(await registry.rollKey('key_a', NEWER, T0 + 1 + 3_600_000, T0 + 1)).toEqual({
          rolled: managed('key_a', T0, { rolledAt: T0 + 1, previousSecretUntil: T0 + 1 + 3_600_000 }),
        });
        expect([await holderBy(OLD), await holderBy(NEW), await holderBy(NEWER)]).toEqual([undefined, OLD, OLD]);
        expect(await registry.grantOf(NEW)).toEqual({ ...customer(STANDARD_PLANS.pro), expiresAt: T0 + 1 + 3_600_000, holder: OLD });
        clock.set(T0 + 1 + 3_600_000);
        expect([await holderBy(OLD), await holderBy(NEW), await holderBy(NEWER)]).toEqual([undefined, undefined, OLD]);
        expect((await registry.findKey('key_a'))?.digest).toBe(OLD);
      });

      it('an unknown id is not found and a revoked key is refused: nothing changes, the new secret has no grant', async () => {
        await registry.createKey(OLD, managed('key_a', T0));
        expect(await registry.rollKey('key_unknown', NEW, T0 + DAY, T0 + 1)).toBe('not_found');
        expect(await registry.revokeKey('key_a', T0 + 2)).toBe('revoked');
        expect(await registry.rollKey('key_a', NEW, T0 + DAY, T0 + 3)).toBe('revoked');
        expect([await registry.grantOf(OLD), await registry.grantOf(NEW)]).toEqual([undefined, undefined]);
        expect(await registry.listKeys()).toEqual([{ key: managed('key_a', T0, { revokedAt: T0 + 2 }), digest: OLD }]);
      });

      it('an expired key may be rolled: its secrets stay refused until an update moves its expiry', async () => {
        await registry.createKey(OLD, managed('key_a', T0, { expiresAt: T0 + 1_000 }));
        clock.set(T0 + 2_000);
        expect(await registry.rollKey('key_a', NEW, T0 + 2_000 + DAY, T0 + 2_000)).toMatchObject({ rolled: { expiresAt: T0 + 1_000, rolledAt: T0 + 2_000 } });
        expect([await registry.grantOf(OLD), await registry.grantOf(NEW)]).toEqual([undefined, undefined]);
        await registry.updateKey('key_a', { expiresAt: T0 + 10_000 }, T0 + 2_000);
        expect([await holderBy(OLD), await holderBy(NEW)]).toEqual([OLD, OLD]);
      });

      it('an update after a roll applies to both secrets; the old one ends with its grace or with the key, whichever is first', async () => {
        await registry.createKey(OLD, managed('key_a', T0));
        await registry.rollKey('key_a', NEW, T0 + DAY, T0);
        expect(await registry.updateKey('key_a', { plan: STANDARD_PLANS.business, role: 'staff', expiresAt: T0 + 1_000 }, T0 + 1)).toEqual({
          updated: managed('key_a', T0, { plan: STANDARD_PLANS.business, role: 'staff', expiresAt: T0 + 1_000, updatedAt: T0 + 1, rolledAt: T0, previousSecretUntil: T0 + DAY }),
        });
        const business = { plan: STANDARD_PLANS.business, role: 'staff' } as const;
        expect(await registry.grantOf(OLD)).toEqual({ ...business, expiresAt: T0 + 1_000 });
        expect(await registry.grantOf(NEW)).toEqual({ ...business, expiresAt: T0 + 1_000, holder: OLD });
        await registry.updateKey('key_a', { expiresAt: T0 + 2 * DAY }, T0 + 2);
        expect(await registry.grantOf(OLD)).toEqual({ ...business, expiresAt: T0 + DAY });
        expect(await registry.grantOf(NEW)).toEqual({ ...business, expiresAt: T0 + 2 * DAY, holder: OLD });
      });

      it('revoking a rolled key refuses both secrets at once and ends the grace then', async () => {
        await registry.createKey(OLD, managed('key_a', T0));
        await registry.rollKey('key_a', NEW, T0 + DAY, T0);
        expect(await registry.revokeKey('key_a', T0 + 7)).toBe('revoked');
        expect([await registry.grantOf(OLD), await registry.grantOf(NEW)]).toEqual([undefined, undefined]);
        expect(await registry.findKey('key_a')).toEqual({ key: managed('key_a', T0, { rolledAt: T0, previousSecretUntil: T0 + 7, revokedAt: T0 + 7 }), digest: OLD });
      });

      it('refuses a new secret that is a secret already, of this key or another, and changes nothing', async () => {
        await registry.createKey(OLD, managed('key_a', T0));
        await registry.createKey(digestOf('b'), managed('key_b', T0));
        await registry.rollKey('key_b', digestOf('b2'), T0 + DAY, T0);
        await registry.register(digestOf('registered'), customer(STANDARD_PLANS.free));
        for (const taken of [OLD, digestOf('b'), digestOf('b2'), digestOf('registered')]) {
          await expect(registry.rollKey('key_a', taken, T0 + DAY, T0 + 1), taken).rejects.toThrow();
        }
        expect(await registry.findKey('key_a')).toEqual({ key: managed('key_a', T0), digest: OLD });
        expect([await holderBy(OLD), await holderBy(digestOf('b')), await holderBy(digestOf('b2'))]).toEqual([OLD, digestOf('b'), digestOf('b')]);
      });

      it('of a roll and a revocation racing, the key ends revoked with no secret; of rolls racing, each applies whole, one after the other', async () => {
        await registry.createKey(OLD, managed('key_a', T0));
        const [rolled, revoked] = await Promise.all([registry.rollKey('key_a', NEW, T0 + DAY, T0 + 1), registry.revokeKey('key_a', T0 + 1)]);
        expect(revoked).toBe('revoked');
        expect(typeof rolled === 'object' ? 'rolled' : rolled).toMatch(/^(rolled|revoked)$/);
        expect([await registry.grantOf(OLD), await registry.grantOf(NEW)]).toEqual([undefined, undefined]);

        const B = digestOf('b');
        const secrets = [digestOf('b1'), digestOf('b2'), digestOf('b3')];
        await registry.createKey(B, managed('key_b', T0));
        const outcomes = await Promise.all(secrets.map((secret, i) => registry.rollKey('key_b', secret, T0 + DAY + i, T0 + 1)));
        expect(outcomes.every((outcome) => typeof outcome === 'object')).toBe(true);
        const grants = await Promise.all(secrets.map(async (secret) => registry.grantOf(secret)));
        // The last roll's secret, the one before it in its grace, the first one ended by the second roll.
        const current = grants.findIndex((grant) => grant !== undefined && grant.expiresAt === undefined);
        const previous = grants.findIndex((grant) => grant?.expiresAt !== undefined);
        expect(grants.filter((grant) => grant !== undefined)).toHaveLength(2);
        expect(grants[previous]?.expiresAt).toBe((await registry.findKey('key_b'))?.key.previousSecretUntil);
        expect(grants[previous]?.expiresAt).toBe(T0 + DAY + current);
        expect(await registry.grantOf(B)).toBeUndefined();
        expect(grants.map((grant) => grant?.holder)).toEqual(secrets.map((_, i) => (i === current || i === previous ? B : undefined)));
      });
    });
  });
};
