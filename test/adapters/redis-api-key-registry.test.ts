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
  it('keeps the plans in one hash under its prefix, keyed by digest: no raw key stored', async () => {
    const prefix = shared.freshPrefix();
    const digest = 'ab'.repeat(32);
    await new RedisApiKeyRegistry(shared.redis, prefix).register(digest, STANDARD_PLANS.pro);
    expect(await shared.redis.hkeys(`${prefix}api-keys`)).toEqual([digest]);
  });

  it('a registry of another instance sharing the store answers the same plan', async () => {
    const prefix = shared.freshPrefix();
    await new RedisApiKeyRegistry(shared.redis, prefix).register('cd'.repeat(32), STANDARD_PLANS.business);
    expect(await new RedisApiKeyRegistry(shared.redis, prefix).planOf('cd'.repeat(32))).toEqual(STANDARD_PLANS.business);
  });

  it('refuses a key prefix with braces', () => {
    expect(() => new RedisApiKeyRegistry(shared.redis, '{petstore}:')).toThrow(RangeError);
  });
});
