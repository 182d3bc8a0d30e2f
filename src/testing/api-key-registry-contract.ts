import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ROLES, type Role } from '../domain/access/caller.js';
import { enterprisePlan, STANDARD_PLANS, type Plan } from '../domain/quota/plan.js';
import type { PlanRule } from '../domain/quota/plan-rules.js';
import { holderOf, type ApiKeyGrant, type ApiKeyRegistry, type KeyAdmin, type ManagedApiKey } from '../ports/api-key-registry.js';
import type { Clock } from '../ports/clock.js';
import { lacks, like, rejects, same } from './assertions.js';
import { checkOf, type ContractCheck, type ContractOptions } from './check.js';
import { ManualClock } from './manual-clock.js';

export interface ApiKeyRegistryFixture {
  readonly registry: ApiKeyRegistry;
  cleanup(): Promise<void>;
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
 * The behaviour every ApiKeyRegistry shares: one check per rule. `create` must give a fresh,
 * empty registry and `cleanup` must release it.
 */
export const apiKeyRegistryChecks = (create: () => Promise<ApiKeyRegistryFixture>, options: ContractOptions = {}): ContractCheck[] => {
  const check = (name: string, body: (context: ApiKeyRegistryFixture) => Promise<void>): ContractCheck => checkOf(name, create, body);

  return [
    check('a digest never registered has no grant', async ({ registry }) => {
      same(await registry.grantOf(digestOf('unknown')), undefined);
      await registry.register(digestOf('known'), customer(STANDARD_PLANS.free));
      same(await registry.grantOf(digestOf('unknown')), undefined);
      same(await registry.grantOf(''), undefined);
    }),

    check('a registered digest answers its own plan, standard or enterprise', async ({ registry }) => {
      const plans: Record<string, Plan> = {
        free: STANDARD_PLANS.free,
        pro: STANDARD_PLANS.pro,
        business: STANDARD_PLANS.business,
        enterprise: enterprisePlan(5_000, 2_000_000),
      };
      for (const [key, plan] of Object.entries(plans)) await registry.register(digestOf(key), customer(plan));
      for (const [key, plan] of Object.entries(plans)) same(await registry.grantOf(digestOf(key)), customer(plan));
    }),

    check('a registered digest answers its own role, customer or staff, whatever the plan', async ({ registry }) => {
      await registry.register(digestOf('customer'), customer(STANDARD_PLANS.pro));
      await registry.register(digestOf('staff'), staff(STANDARD_PLANS.pro));
      await registry.register(digestOf('enterprise staff'), staff(enterprisePlan(100, 1_000)));
      same(await registry.grantOf(digestOf('customer')), { plan: STANDARD_PLANS.pro, role: 'customer' });
      same(await registry.grantOf(digestOf('staff')), { plan: STANDARD_PLANS.pro, role: 'staff' });
      same(await registry.grantOf(digestOf('enterprise staff')), { plan: enterprisePlan(100, 1_000), role: 'staff' });
    }),

    check('registering a digest again replaces its plan and its role: staff registered again as a customer is a customer', async ({ registry }) => {
      await registry.register(digestOf('k'), staff(STANDARD_PLANS.free));
      await registry.register(digestOf('k'), customer(STANDARD_PLANS.business));
      same(await registry.grantOf(digestOf('k')), customer(STANDARD_PLANS.business));
    }),

    check('neither the registered grant nor a returned grant can change what is stored', async ({ registry }) => {
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
      same(await registry.grantOf(digestOf('k')), customer(enterprisePlan(10, 100)));
    }),

    check('concurrent registrations of many digests are all kept', async ({ registry }) => {
      const keys = Array.from({ length: 100 }, (_, index) => `key-${index}`);
      const grantAt = (index: number): ApiKeyGrant => ({
        plan: enterprisePlan(index + 1, index + 1_000),
        role: index % 2 === 0 ? 'customer' : 'staff',
      });
      await Promise.all(keys.map((key, index) => registry.register(digestOf(key), grantAt(index))));
      for (const [index, key] of keys.entries()) same(await registry.grantOf(digestOf(key)), grantAt(index));
    }),

    check('any sequence of registrations answers every lookup like a map of the last grant per digest', async () => {
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
            for (const key of ['a', 'b', 'c', 'd', 'e']) same(await run.registry.grantOf(digestOf(key)), model.get(key));
          } finally {
            await run.cleanup();
          }
        }),
        { numRuns: options.numRuns ?? 100 },
      );
    }),
  ];
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
 * The behaviour of registries that also manage keys by id (`petstore keys`): one check per rule.
 * `create` must give a fresh, empty registry whose expiry decisions follow `clock` (the checks
 * move it).
 */
export const keyAdminChecks = (create: (clock: Clock) => Promise<KeyAdminFixture>): ContractCheck[] => {
  const T0 = Date.UTC(2026, 10, 23);
  interface Context extends KeyAdminFixture {
    readonly clock: ManualClock;
    holderBy(digest: string): Promise<string | undefined>;
  }
  const setup = async (): Promise<Context> => {
    const clock = new ManualClock(T0);
    const fixture = await create(clock);
    const { registry } = fixture;
    const holderBy = async (digest: string): Promise<string | undefined> => {
      const grant = await registry.grantOf(digest);
      return grant === undefined ? undefined : holderOf(grant, digest);
    };
    return { registry, clock, holderBy, cleanup: async () => fixture.cleanup() };
  };
  const check = (name: string, body: (context: Context) => Promise<void>): ContractCheck => checkOf(name, setup, body);

  const main = [
    check('a created key answers its grant by digest, and is listed and found by id with its label, plan, role, dates and digest', async ({ registry }) => {
      const key = managed('key_a', T0, { plan: enterprisePlan(100, 5_000), role: 'staff', label: 'ci deploys', expiresAt: T0 + 60_000 });
      await registry.createKey(digestOf('secret-a'), key);
      same(await registry.grantOf(digestOf('secret-a')), { plan: enterprisePlan(100, 5_000), role: 'staff', expiresAt: T0 + 60_000 });
      same(await registry.listKeys(), [{ key, digest: digestOf('secret-a') }]);
      same(await registry.findKey('key_a'), { key, digest: digestOf('secret-a') });
      same(await registry.findKey('key_unknown'), undefined);
    }),

    check('an expiring key has its grant until its expiry and none from then on, and is still listed', async ({ registry, clock }) => {
      await registry.createKey(digestOf('short'), managed('key_short', T0, { expiresAt: T0 + 2_000 }));
      await registry.createKey(digestOf('forever'), managed('key_forever', T0 + 1));
      clock.set(T0 + 1_999);
      like(await registry.grantOf(digestOf('short')), { plan: STANDARD_PLANS.pro });
      clock.set(T0 + 2_000);
      same(await registry.grantOf(digestOf('short')), undefined);
      same(await registry.grantOf(digestOf('forever')), customer(STANDARD_PLANS.pro));
      same((await registry.listKeys()).map(({ key }) => key.id), ['key_short', 'key_forever']);
    }),

    check('a grant registered with an expiry is refused from then on', async ({ registry, clock }) => {
      await registry.register(digestOf('k'), { ...customer(STANDARD_PLANS.free), expiresAt: T0 + 10 });
      same(await registry.grantOf(digestOf('k')), { ...customer(STANDARD_PLANS.free), expiresAt: T0 + 10 });
      clock.advance(10);
      same(await registry.grantOf(digestOf('k')), undefined);
    }),

    check('a revoked key has no grant at once, is listed with its revocation time, and other keys are untouched', async ({ registry }) => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      await registry.createKey(digestOf('b'), managed('key_b', T0 + 1));
      same(await registry.revokeKey('key_a', T0 + 5), 'revoked');
      same(await registry.grantOf(digestOf('a')), undefined);
      same(await registry.grantOf(digestOf('b')), customer(STANDARD_PLANS.pro));
      same((await registry.listKeys()).map(({ key }) => key), [managed('key_a', T0, { revokedAt: T0 + 5 }), managed('key_b', T0 + 1)]);
    }),

    check('revoking twice says so and keeps the first time; an unknown id is not found', async ({ registry }) => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      same(await registry.revokeKey('key_a', T0 + 5), 'revoked');
      same(await registry.revokeKey('key_a', T0 + 9), 'already_revoked');
      same(await registry.revokeKey('key_unknown', T0 + 9), 'not_found');
      same((await registry.listKeys())[0]?.key.revokedAt, T0 + 5);
    }),

    check('of concurrent revocations of one key exactly one revokes it', async ({ registry }) => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => registry.revokeKey('key_a', T0 + i)));
      same((outcomes.filter((outcome) => outcome === 'revoked')).length, 1);
      same((outcomes.filter((outcome) => outcome === 'already_revoked')).length, 9);
    }),

    check('lists every managed key oldest first, and only those: keys registered by digest alone are not listed', async ({ registry }) => {
      await registry.register(digestOf('registered'), customer(STANDARD_PLANS.free));
      for (const [index, id] of ['key_3', 'key_1', 'key_2'].entries()) await registry.createKey(digestOf(id), managed(id, T0 + [3, 1, 2][index]!));
      same((await registry.listKeys()).map(({ key }) => key.id), ['key_1', 'key_2', 'key_3']);
      same(await registry.grantOf(digestOf('registered')), customer(STANDARD_PLANS.free));
    }),

    check('refuses a second key under a taken id or digest, and the first keeps working', async ({ registry }) => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      await rejects(registry.createKey(digestOf('other'), managed('key_a', T0 + 1, { plan: STANDARD_PLANS.free })), Error);
      await rejects(registry.createKey(digestOf('a'), managed('key_other', T0 + 1)), Error);
      same(await registry.grantOf(digestOf('a')), customer(STANDARD_PLANS.pro));
      same(await registry.grantOf(digestOf('other')), undefined);
      same((await registry.listKeys()).map(({ key }) => key.id), ['key_a']);
    }),

    check('an update changes the grant by digest at once and the listed key, stamped with its time; what it is not given stays', async ({ registry }) => {
      await registry.createKey(digestOf('a'), managed('key_a', T0, { plan: STANDARD_PLANS.free, label: 'before', expiresAt: T0 + 60_000 }));
      await registry.createKey(digestOf('b'), managed('key_b', T0 + 1));
      const updated = managed('key_a', T0, { plan: enterprisePlan(500, 20_000), label: 'before', expiresAt: T0 + 60_000, updatedAt: T0 + 7 });
      same(await registry.updateKey('key_a', { plan: enterprisePlan(500, 20_000) }, T0 + 7), { updated });
      same(await registry.grantOf(digestOf('a')), { plan: enterprisePlan(500, 20_000), role: 'customer', expiresAt: T0 + 60_000 });
      same(await registry.findKey('key_a'), { key: updated, digest: digestOf('a') });

      const changes = { plan: STANDARD_PLANS.business, role: 'staff', label: 'after', expiresAt: T0 + 120_000 } as const;
      same(await registry.updateKey('key_a', changes, T0 + 9), { updated: managed('key_a', T0, { ...changes, updatedAt: T0 + 9 }) });
      same(await registry.grantOf(digestOf('a')), { plan: STANDARD_PLANS.business, role: 'staff', expiresAt: T0 + 120_000 });
      same((await registry.listKeys()).map(({ key }) => key), [managed('key_a', T0, { ...changes, updatedAt: T0 + 9 }), managed('key_b', T0 + 1)]);
      same(await registry.grantOf(digestOf('b')), customer(STANDARD_PLANS.pro));
    }),

    check('an expired key updated with a later expiry has its grant again', async ({ registry, clock }) => {
      await registry.createKey(digestOf('a'), managed('key_a', T0, { expiresAt: T0 + 1_000 }));
      clock.set(T0 + 5_000);
      same(await registry.grantOf(digestOf('a')), undefined);
      like(await registry.updateKey('key_a', { expiresAt: T0 + 10_000 }, T0 + 5_000), { updated: { expiresAt: T0 + 10_000 } });
      same(await registry.grantOf(digestOf('a')), { ...customer(STANDARD_PLANS.pro), expiresAt: T0 + 10_000 });
    }),

    check('updating an unknown id is not found and a revoked key is refused: nothing changes, the revoked key keeps no grant', async ({ registry }) => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      same(await registry.updateKey('key_unknown', { plan: STANDARD_PLANS.free }, T0 + 1), 'not_found');
      same(await registry.revokeKey('key_a', T0 + 2), 'revoked');
      same(await registry.updateKey('key_a', { plan: STANDARD_PLANS.business, label: 'x' }, T0 + 3), 'revoked');
      same(await registry.grantOf(digestOf('a')), undefined);
      same(await registry.listKeys(), [{ key: managed('key_a', T0, { revokedAt: T0 + 2 }), digest: digestOf('a') }]);
    }),

    check('of an update and a revocation racing, the key ends revoked with no grant; concurrent updates each apply whole', async ({ registry }) => {
      await registry.createKey(digestOf('a'), managed('key_a', T0));
      const [updated, revoked] = await Promise.all([registry.updateKey('key_a', { plan: STANDARD_PLANS.business }, T0 + 1), registry.revokeKey('key_a', T0 + 1)]);
      same(revoked, 'revoked');
      // Either order is fine; an update that came second found the key revoked.
      assert.match(typeof updated === 'object' ? 'updated' : updated, /^(updated|revoked)$/);
      same(await registry.grantOf(digestOf('a')), undefined);

      await registry.createKey(digestOf('b'), managed('key_b', T0));
      const plans = [STANDARD_PLANS.free, STANDARD_PLANS.business, enterprisePlan(7, 70)];
      await Promise.all(plans.map((plan, i) => registry.updateKey('key_b', { plan, label: `update ${i}` }, T0 + i)));
      const [final] = await registry.listKeys().then((keys) => keys.filter(({ key }) => key.id === 'key_b'));
      const winner = plans.findIndex((plan) => JSON.stringify(plan) === JSON.stringify(final?.key.plan));
      same(final?.key.label, `update ${winner}`, 'plan and label from the same update');
      same(await registry.grantOf(digestOf('b')), customer(plans[winner]!));
    }),
  ];

  const overrideChecks = (() => {
      const overrides = { search: { limit: 60 }, burst: { limit: 7, mode: 'enforce' } } as const;

      const grouped = (name: string, body: (context: Context) => Promise<void>): ContractCheck => check(`overrides of rules of a key's plan > ${name}`, body);
      return [
      grouped('a key created with overrides answers its plan with them applied, and is listed and found with its plan and its overrides apart', async ({ registry }) => {
        const key = managed('key_a', T0, { plan: FILE_PLAN, overrides });
        await registry.createKey(digestOf('a'), key);
        // The cap is kept as it is: overrides change rules only.
        const effective: Plan = { ...FILE_PLAN, rules: [MINUTE_100, { ...SEARCH, limit: 60 }, { ...BURST, limit: 7, mode: 'enforce' }] };
        same(await registry.grantOf(digestOf('a')), customer(effective));
        same(await registry.findKey('key_a'), { key, digest: digestOf('a') });
        same(await registry.listKeys(), [{ key, digest: digestOf('a') }]);
      }),

      grouped('an update sets them whole at once; one that does not name them keeps them, through a change of plan too; {} removes them all', async ({ registry }) => {
        await registry.createKey(digestOf('a'), managed('key_a', T0));
        const minute600 = { minute: { limit: 600 } };
        same(await registry.updateKey('key_a', { overrides: minute600 }, T0 + 1), { updated: managed('key_a', T0, { overrides: minute600, updatedAt: T0 + 1 }) });
        same(await registry.grantOf(digestOf('a')), customer({ name: 'pro', rules: [{ ...PRO_MINUTE!, limit: 600 }, PRO_DAY!] }));

        like(await registry.updateKey('key_a', { label: 'renamed' }, T0 + 2), { updated: { overrides: minute600, label: 'renamed' } });
        like(await registry.updateKey('key_a', { plan: STANDARD_PLANS.business }, T0 + 3), { updated: { overrides: minute600 } });
        same(await registry.grantOf(digestOf('a')), customer({ name: 'business', rules: [{ name: 'minute', limit: 600, windowMs: 60_000 }, BUSINESS_DAY] }));

        const removed = managed('key_a', T0, { plan: STANDARD_PLANS.business, label: 'renamed', updatedAt: T0 + 4 });
        same(await registry.updateKey('key_a', { overrides: {} }, T0 + 4), { updated: removed });
        same(await registry.findKey('key_a'), { key: removed, digest: digestOf('a') });
        lacks((await registry.findKey('key_a'))?.key, 'overrides');
        same(await registry.grantOf(digestOf('a')), customer(STANDARD_PLANS.business));
      }),

      grouped('a rolled key answers its overridden plan by both secrets, and an update of its overrides reaches both', async ({ registry }) => {
        await registry.createKey(digestOf('old'), managed('key_a', T0, { plan: FILE_PLAN, overrides: { search: { limit: 20 } } }));
        await registry.rollKey('key_a', digestOf('new'), T0 + 86_400_000, T0 + 1);
        const searchLimit = async (secret: string): Promise<number | undefined> => (await registry.grantOf(digestOf(secret)))?.plan.rules[1]?.limit;
        same([await searchLimit('old'), await searchLimit('new')], [20, 20]);
        await registry.updateKey('key_a', { overrides: { search: { limit: 30 } } }, T0 + 2);
        same([await searchLimit('old'), await searchLimit('new')], [30, 30]);
        like(await registry.findKey('key_a'), { key: { overrides: { search: { limit: 30 } }, plan: FILE_PLAN }, digest: digestOf('old') });
      }),

      grouped('a key without overrides answers its plan as it is: no overrides field, the plan unchanged', async ({ registry }) => {
        await registry.createKey(digestOf('a'), managed('key_a', T0, { plan: FILE_PLAN }));
        same(await registry.grantOf(digestOf('a')), customer(FILE_PLAN));
        lacks((await registry.findKey('key_a'))?.key, 'overrides');
      }),
      ];
  })();
  const rollingChecks = (() => {
      const DAY = 86_400_000;
      const [OLD, NEW, NEWER] = [digestOf('old secret'), digestOf('new secret'), digestOf('newer secret')];
      const grouped = (name: string, body: (context: Context) => Promise<void>): ContractCheck => check(`rolling a key > ${name}`, body);
      return [
      grouped('answers the same grant by the old and the new secret, both known as the key, until the grace ends; then by the new one only', async ({ registry, clock, holderBy }) => {
        const plan = enterprisePlan(100, 5_000);
        await registry.createKey(OLD, managed('key_a', T0, { plan, role: 'staff', label: 'ci' }));
        await registry.createKey(digestOf('b'), managed('key_b', T0 + 1));
        const rolled = managed('key_a', T0, { plan, role: 'staff', label: 'ci', rolledAt: T0 + 10, previousSecretUntil: T0 + 10 + DAY });
        same(await registry.rollKey('key_a', NEW, T0 + 10 + DAY, T0 + 10), { rolled });
        same(await registry.grantOf(NEW), { plan, role: 'staff', holder: OLD });
        same(await registry.grantOf(OLD), { plan, role: 'staff', expiresAt: T0 + 10 + DAY });
        // Its usage is still read by the digest it was created with.
        same(await registry.findKey('key_a'), { key: rolled, digest: OLD });
        same(await registry.listKeys(), [{ key: rolled, digest: OLD }, { key: managed('key_b', T0 + 1), digest: digestOf('b') }]);

        clock.set(T0 + 10 + DAY - 1);
        same([await holderBy(OLD), await holderBy(NEW)], [OLD, OLD]);
        clock.set(T0 + 10 + DAY);
        same([await holderBy(OLD), await holderBy(NEW)], [undefined, OLD]);
        same(await registry.grantOf(digestOf('b')), customer(STANDARD_PLANS.pro));
      }),

      grouped('with no grace refuses the old secret at once, and records no grace', async ({ registry, holderBy }) => {
        await registry.createKey(OLD, managed('key_a', T0));
        same(await registry.rollKey('key_a', NEW, T0 + 5, T0 + 5), { rolled: managed('key_a', T0, { rolledAt: T0 + 5 }) });
        same(await registry.grantOf(OLD), undefined);
        same(await registry.grantOf(NEW), { ...customer(STANDARD_PLANS.pro), holder: OLD });
        same(await registry.rollKey('key_a', NEWER, T0, T0 + 6), { rolled: managed('key_a', T0, { rolledAt: T0 + 6 }) });
        same([await holderBy(OLD), await holderBy(NEW), await holderBy(NEWER)], [undefined, undefined, OLD]);
      }),

      grouped('a second roll during the grace ends the oldest secret at once; the key keeps one holder through every roll', async ({ registry, clock, holderBy }) => {
        await registry.createKey(OLD, managed('key_a', T0));
        await registry.rollKey('key_a', NEW, T0 + DAY, T0);
        same(await registry.rollKey('key_a', NEWER, T0 + 1 + 3_600_000, T0 + 1), {
          rolled: managed('key_a', T0, { rolledAt: T0 + 1, previousSecretUntil: T0 + 1 + 3_600_000 }),
        });
        same([await holderBy(OLD), await holderBy(NEW), await holderBy(NEWER)], [undefined, OLD, OLD]);
        same(await registry.grantOf(NEW), { ...customer(STANDARD_PLANS.pro), expiresAt: T0 + 1 + 3_600_000, holder: OLD });
        clock.set(T0 + 1 + 3_600_000);
        same([await holderBy(OLD), await holderBy(NEW), await holderBy(NEWER)], [undefined, undefined, OLD]);
        same((await registry.findKey('key_a'))?.digest, OLD);
      }),

      grouped('an unknown id is not found and a revoked key is refused: nothing changes, the new secret has no grant', async ({ registry }) => {
        await registry.createKey(OLD, managed('key_a', T0));
        same(await registry.rollKey('key_unknown', NEW, T0 + DAY, T0 + 1), 'not_found');
        same(await registry.revokeKey('key_a', T0 + 2), 'revoked');
        same(await registry.rollKey('key_a', NEW, T0 + DAY, T0 + 3), 'revoked');
        same([await registry.grantOf(OLD), await registry.grantOf(NEW)], [undefined, undefined]);
        same(await registry.listKeys(), [{ key: managed('key_a', T0, { revokedAt: T0 + 2 }), digest: OLD }]);
      }),

      grouped('an expired key may be rolled: its secrets stay refused until an update moves its expiry', async ({ registry, clock, holderBy }) => {
        await registry.createKey(OLD, managed('key_a', T0, { expiresAt: T0 + 1_000 }));
        clock.set(T0 + 2_000);
        like(await registry.rollKey('key_a', NEW, T0 + 2_000 + DAY, T0 + 2_000), { rolled: { expiresAt: T0 + 1_000, rolledAt: T0 + 2_000 } });
        same([await registry.grantOf(OLD), await registry.grantOf(NEW)], [undefined, undefined]);
        await registry.updateKey('key_a', { expiresAt: T0 + 10_000 }, T0 + 2_000);
        same([await holderBy(OLD), await holderBy(NEW)], [OLD, OLD]);
      }),

      grouped('an update after a roll applies to both secrets; the old one ends with its grace or with the key, whichever is first', async ({ registry }) => {
        await registry.createKey(OLD, managed('key_a', T0));
        await registry.rollKey('key_a', NEW, T0 + DAY, T0);
        same(await registry.updateKey('key_a', { plan: STANDARD_PLANS.business, role: 'staff', expiresAt: T0 + 1_000 }, T0 + 1), {
          updated: managed('key_a', T0, { plan: STANDARD_PLANS.business, role: 'staff', expiresAt: T0 + 1_000, updatedAt: T0 + 1, rolledAt: T0, previousSecretUntil: T0 + DAY }),
        });
        const business = { plan: STANDARD_PLANS.business, role: 'staff' } as const;
        same(await registry.grantOf(OLD), { ...business, expiresAt: T0 + 1_000 });
        same(await registry.grantOf(NEW), { ...business, expiresAt: T0 + 1_000, holder: OLD });
        await registry.updateKey('key_a', { expiresAt: T0 + 2 * DAY }, T0 + 2);
        same(await registry.grantOf(OLD), { ...business, expiresAt: T0 + DAY });
        same(await registry.grantOf(NEW), { ...business, expiresAt: T0 + 2 * DAY, holder: OLD });
      }),

      grouped('revoking a rolled key refuses both secrets at once and ends the grace then', async ({ registry }) => {
        await registry.createKey(OLD, managed('key_a', T0));
        await registry.rollKey('key_a', NEW, T0 + DAY, T0);
        same(await registry.revokeKey('key_a', T0 + 7), 'revoked');
        same([await registry.grantOf(OLD), await registry.grantOf(NEW)], [undefined, undefined]);
        same(await registry.findKey('key_a'), { key: managed('key_a', T0, { rolledAt: T0, previousSecretUntil: T0 + 7, revokedAt: T0 + 7 }), digest: OLD });
      }),

      grouped('refuses a new secret that is a secret already, of this key or another, and changes nothing', async ({ registry, holderBy }) => {
        await registry.createKey(OLD, managed('key_a', T0));
        await registry.createKey(digestOf('b'), managed('key_b', T0));
        await registry.rollKey('key_b', digestOf('b2'), T0 + DAY, T0);
        await registry.register(digestOf('registered'), customer(STANDARD_PLANS.free));
        for (const taken of [OLD, digestOf('b'), digestOf('b2'), digestOf('registered')]) {
          await rejects(registry.rollKey('key_a', taken, T0 + DAY, T0 + 1), Error, taken);
        }
        same(await registry.findKey('key_a'), { key: managed('key_a', T0), digest: OLD });
        same([await holderBy(OLD), await holderBy(digestOf('b')), await holderBy(digestOf('b2'))], [OLD, digestOf('b'), digestOf('b')]);
      }),

      grouped('of a roll and a revocation racing, the key ends revoked with no secret; of rolls racing, each applies whole, one after the other', async ({ registry }) => {
        await registry.createKey(OLD, managed('key_a', T0));
        const [rolled, revoked] = await Promise.all([registry.rollKey('key_a', NEW, T0 + DAY, T0 + 1), registry.revokeKey('key_a', T0 + 1)]);
        same(revoked, 'revoked');
        assert.match(typeof rolled === 'object' ? 'rolled' : rolled, /^(rolled|revoked)$/);
        same([await registry.grantOf(OLD), await registry.grantOf(NEW)], [undefined, undefined]);

        const B = digestOf('b');
        const secrets = [digestOf('b1'), digestOf('b2'), digestOf('b3')];
        await registry.createKey(B, managed('key_b', T0));
        const outcomes = await Promise.all(secrets.map((secret, i) => registry.rollKey('key_b', secret, T0 + DAY + i, T0 + 1)));
        same(outcomes.every((outcome) => typeof outcome === 'object'), true);
        const grants = await Promise.all(secrets.map(async (secret) => registry.grantOf(secret)));
        // The last roll's secret, the one before it in its grace, the first one ended by the second roll.
        const current = grants.findIndex((grant) => grant !== undefined && grant.expiresAt === undefined);
        const previous = grants.findIndex((grant) => grant?.expiresAt !== undefined);
        same((grants.filter((grant) => grant !== undefined)).length, 2);
        same(grants[previous]?.expiresAt, (await registry.findKey('key_b'))?.key.previousSecretUntil);
        same(grants[previous]?.expiresAt, T0 + DAY + current);
        same(await registry.grantOf(B), undefined);
        same(grants.map((grant) => grant?.holder), secrets.map((_, i) => (i === current || i === previous ? B : undefined)));
      }),
      ];
  })();

  return [...main, ...overrideChecks, ...rollingChecks];
};
