import { describe, expect, it } from 'vitest';
import { RedisApiKeyRegistry } from '../../src/adapters/redis/redis-api-key-registry.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { describeApiKeyRegistryContract, describeKeyAdminContract } from '../contracts/api-key-registry-contract.js';
import { deleteKeysUnder } from '../support/test-redis.js';
import { useTestRedis } from '../support/use-test-redis.js';
import { runs } from '../support/property-runs.js';

const shared = useTestRedis();

describeApiKeyRegistryContract(
  'RedisApiKeyRegistry',
  async () => {
    const prefix = shared.freshPrefix();
    return { registry: new RedisApiKeyRegistry(shared.redis, prefix), cleanup: () => deleteKeysUnder(shared.redis, prefix) };
  },
  { numRuns: runs(200) },
);

describeKeyAdminContract('RedisApiKeyRegistry', async (clock) => {
  const prefix = shared.freshPrefix();
  return { registry: new RedisApiKeyRegistry(shared.redis, prefix, clock), cleanup: () => deleteKeysUnder(shared.redis, prefix) };
});

describe('RedisApiKeyRegistry', () => {
  it('keeps the grants in one hash under its prefix, keyed by digest: no raw key stored', async () => {
    const prefix = shared.freshPrefix();
    const digest = 'ab'.repeat(32);
    await new RedisApiKeyRegistry(shared.redis, prefix).register(digest, { plan: STANDARD_PLANS.pro, role: 'staff' });
    expect(await shared.redis.hkeys(`${prefix}api-keys`)).toEqual([digest]);
  });

  it('a registry of another instance sharing the store answers the same grant', async () => {
    const prefix = shared.freshPrefix();
    const grant = { plan: STANDARD_PLANS.business, role: 'staff' } as const;
    await new RedisApiKeyRegistry(shared.redis, prefix).register('cd'.repeat(32), grant);
    expect(await new RedisApiKeyRegistry(shared.redis, prefix).grantOf('cd'.repeat(32))).toEqual(grant);
  });

  it('reads a record written before keys had roles, a plan alone, as a customer', async () => {
    const prefix = shared.freshPrefix();
    const rules = STANDARD_PLANS.pro.rules.map(({ name, limit, windowMs }) => ({ name, limit, windowMs }));
    await shared.redis.hset(`${prefix}api-keys`, 'ef'.repeat(32), JSON.stringify({ name: 'pro', rules }));
    expect(await new RedisApiKeyRegistry(shared.redis, prefix).grantOf('ef'.repeat(32))).toEqual({
      plan: STANDARD_PLANS.pro,
      role: 'customer',
    });
  });

  it('refuses a record whose role is unknown: the keyspace was tampered with', async () => {
    const prefix = shared.freshPrefix();
    const rules = STANDARD_PLANS.pro.rules.map(({ name, limit, windowMs }) => ({ name, limit, windowMs }));
    await shared.redis.hset(`${prefix}api-keys`, 'ef'.repeat(32), JSON.stringify({ name: 'pro', rules, role: 'admin' }));
    await expect(new RedisApiKeyRegistry(shared.redis, prefix).grantOf('ef'.repeat(32))).rejects.toThrow('Malformed API key record');
  });

  it('keeps a created key in the same hash: its grant under its digest, its record under id:<id>; revoking deletes the grant', async () => {
    const prefix = shared.freshPrefix();
    const registry = new RedisApiKeyRegistry(shared.redis, prefix);
    const digest = '12'.repeat(32);
    const createdAt = Date.UTC(2026, 10, 23);
    await registry.createKey(digest, { id: 'key_1', label: 'ci', plan: STANDARD_PLANS.pro, role: 'staff', createdAt, expiresAt: createdAt + 9e12 });
    expect((await shared.redis.hkeys(`${prefix}api-keys`)).sort()).toEqual([digest, 'id:key_1']);
    // The grant as the previous release reads it ({name, rules, role}): it honours the key too.
    expect(JSON.parse((await shared.redis.hget(`${prefix}api-keys`, digest)) ?? '')).toMatchObject({ name: 'pro', role: 'staff', rules: expect.any(Array) });
    expect(await registry.revokeKey('key_1', createdAt + 1)).toBe('revoked');
    expect(await shared.redis.hkeys(`${prefix}api-keys`)).toEqual(['id:key_1']);
    expect(JSON.parse((await shared.redis.hget(`${prefix}api-keys`, 'id:key_1')) ?? '')).toMatchObject({ digest, label: 'ci', createdAt, revokedAt: createdAt + 1 });
  });

  it("keeps a key's overrides beside its plan in its record, and its grant the plan with them applied, which the previous release reads as it is", async () => {
    const prefix = shared.freshPrefix();
    const registry = new RedisApiKeyRegistry(shared.redis, prefix);
    const digest = '34'.repeat(32);
    await registry.createKey(digest, { id: 'key_4', label: '', plan: STANDARD_PLANS.pro, overrides: { day: { limit: 50_000 } }, role: 'customer', createdAt: 1 });
    const record = JSON.parse((await shared.redis.hget(`${prefix}api-keys`, 'id:key_4')) ?? '');
    expect(record).toMatchObject({ name: 'pro', rules: [{ limit: 300 }, { limit: 10_000 }], overrides: { day: { limit: 50_000 } } });
    expect(JSON.parse((await shared.redis.hget(`${prefix}api-keys`, digest)) ?? '')).toEqual({ name: 'pro', rules: [{ name: 'minute', limit: 300, windowMs: 60_000 }, { name: 'day', limit: 50_000, windowMs: 86_400_000 }], role: 'customer' });
    await registry.updateKey('key_4', { overrides: {} }, 2);
    expect(JSON.parse((await shared.redis.hget(`${prefix}api-keys`, 'id:key_4')) ?? '')).not.toHaveProperty('overrides');
  });

  it('reads records written by the previous release beside created keys, and does not list them', async () => {
    const prefix = shared.freshPrefix();
    const rules = STANDARD_PLANS.business.rules.map(({ name, limit, windowMs }) => ({ name, limit, windowMs }));
    await shared.redis.hset(`${prefix}api-keys`, 'aa'.repeat(32), JSON.stringify({ name: 'business', rules, role: 'staff' }));
    const registry = new RedisApiKeyRegistry(shared.redis, prefix);
    await registry.createKey('bb'.repeat(32), { id: 'key_2', label: '', plan: STANDARD_PLANS.free, role: 'customer', createdAt: 1 });
    expect(await registry.grantOf('aa'.repeat(32))).toEqual({ plan: STANDARD_PLANS.business, role: 'staff' });
    expect((await registry.listKeys()).map(({ key }) => key.id)).toEqual(['key_2']);
  });

  it('never answers a grant for an id field looked up as a digest', async () => {
    const prefix = shared.freshPrefix();
    const registry = new RedisApiKeyRegistry(shared.redis, prefix);
    await registry.createKey('cc'.repeat(32), { id: 'key_3', label: '', plan: STANDARD_PLANS.free, role: 'customer', createdAt: 1 });
    expect(await registry.grantOf('id:key_3')).toBeUndefined();
  });

  it('refuses a key prefix with braces', () => {
    expect(() => new RedisApiKeyRegistry(shared.redis, '{petstore}:')).toThrow(RangeError);
  });
});
