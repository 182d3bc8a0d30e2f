import { describe, expect, it } from 'vitest';
import { RedisApiKeyRegistry } from '../../src/adapters/redis/redis-api-key-registry.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { describeApiKeyRegistryContract } from '../contracts/api-key-registry-contract.js';
import { deleteKeysUnder } from '../support/test-redis.js';
import { useTestRedis } from '../support/use-test-redis.js';

const shared = useTestRedis();

describeApiKeyRegistryContract(
  'RedisApiKeyRegistry',
  async () => {
    const prefix = shared.freshPrefix();
    return { registry: new RedisApiKeyRegistry(shared.redis, prefix), cleanup: () => deleteKeysUnder(shared.redis, prefix) };
  },
  { numRuns: 200 },
);

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

  it('refuses a key prefix with braces', () => {
    expect(() => new RedisApiKeyRegistry(shared.redis, '{petstore}:')).toThrow(RangeError);
  });
});
