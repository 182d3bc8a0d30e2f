import { ContainerModule, type ServiceIdentifier } from 'inversify';
import type { Redis } from 'ioredis';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import { createRedisClient } from '../../adapters/redis/redis-client.js';
import { RedisApiKeyRegistry } from '../../adapters/redis/redis-api-key-registry.js';
import { RedisIdempotencyStore } from '../../adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../adapters/redis/redis-pet-repository.js';
import { RedisQuotaStore } from '../../adapters/redis/redis-quota-store.js';
import { QuotaOutageFallback } from '../../domain/quota/quota-outage-fallback.js';
import type { Clock } from '../../ports/clock.js';
import { CachedApiKeyRegistry } from '../cached-api-key-registry.js';
import type { PetStoreConfig } from '../config.js';
import { LayeredApiKeyRegistry } from '../layered-api-key-registry.js';
import { configuredKeys } from './configured-keys.js';
import { TOKENS } from './tokens.js';

const REDIS: ServiceIdentifier<Redis> = Symbol('Redis');

/** A key's plan is re-read from Redis at most this often, so revocations spread within it. */
const KEY_CACHE_TTL_MS = 5_000;
const KEY_CACHE_ENTRIES = 100_000;

/**
 * Every port on one Redis shared by all instances. `quotaClock` set: quota decisions use
 * its time (tests); unset: the Redis server's TIME, so skewed instance clocks cannot over-admit.
 */
export const redisStoresModule = (quotaClock: Clock | undefined): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind<Redis>(REDIS)
      .toResolvedValue(
        (config, logError) =>
          createRedisClient({ url: config.redisUrl, onError: (error) => logError('redis connection error', error) }),
        [TOKENS.config, TOKENS.logError],
      )
      .inSingletonScope()
      .onDeactivation(async (redis: Redis) => {
        await redis.quit().catch(() => redis.disconnect());
      });
    bind(TOKENS.petRepository)
      .toResolvedValue((redis: Redis, config: PetStoreConfig) => new RedisPetRepository(redis, config.redisPrefix), [REDIS, TOKENS.config])
      .inSingletonScope();
    bind(TOKENS.orderRepository)
      .toResolvedValue((redis: Redis, config: PetStoreConfig) => new RedisOrderRepository(redis, config.redisPrefix), [REDIS, TOKENS.config])
      .inSingletonScope();
    bind(TOKENS.idempotencyStore)
      .toResolvedValue((redis: Redis, config: PetStoreConfig) => new RedisIdempotencyStore(redis, config.redisPrefix), [REDIS, TOKENS.config])
      .inSingletonScope();
    bind(TOKENS.apiKeyRegistry)
      .toResolvedValue(
        async (redis: Redis, config: PetStoreConfig, clock: Clock) =>
          new LayeredApiKeyRegistry(
            await configuredKeys(config),
            new CachedApiKeyRegistry(new RedisApiKeyRegistry(redis, config.redisPrefix, clock), clock, KEY_CACHE_TTL_MS, KEY_CACHE_ENTRIES),
          ),
        [REDIS, TOKENS.config, TOKENS.clock],
      )
      .inSingletonScope();
    bind(TOKENS.quotaStore)
      .toResolvedValue(
        (redis: Redis, config: PetStoreConfig, clock: Clock) =>
          new QuotaOutageFallback(
            new RedisQuotaStore(redis, { prefix: config.redisPrefix, time: quotaClock ?? 'server' }),
            config.quotaFallback,
            new MemoryQuotaStore(clock),
            clock,
          ),
        [REDIS, TOKENS.config, TOKENS.clock],
      )
      .inSingletonScope();
    // Readiness pings through the client the stores use: its command timeout and reconnection included.
    bind(TOKENS.storeProbes).toResolvedValue((redis: Redis) => [{ store: 'redis', ping: () => redis.ping() }], [REDIS]);
  });
