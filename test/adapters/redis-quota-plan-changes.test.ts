import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { describePlanChangeProperties } from '../contracts/quota-plan-change-properties.js';
import { useTestRedis } from '../support/use-test-redis.js';
import { runs } from '../support/property-runs.js';

const shared = useTestRedis();

// The engine's properties on the Redis script: one round trip per decision, so fewer and shorter schedules.
describePlanChangeProperties('the Redis script', (clock) => new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: clock }), {
  numRuns: runs(300),
  maxSteps: 60,
});
