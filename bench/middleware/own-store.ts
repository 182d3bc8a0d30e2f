import type { Redis } from 'ioredis';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import type { ServerSettings } from './common.js';

/** This service's quota store the settings name: in memory, or in Redis under the bench's prefix (the Redis server's clock decides). */
export const ownStore = (settings: ServerSettings, redis: Redis | undefined): MemoryQuotaStore | RedisQuotaStore => {
  if (settings.store === 'memory') return new MemoryQuotaStore(new SystemClock());
  if (redis === undefined) throw new Error('the Redis store needs a Redis client');
  return new RedisQuotaStore(redis, { prefix: `${settings.redisPrefix}own:` });
};
