import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import type { RedisClient } from '../../adapters/redis/redis-client.js';
import { RedisApiKeyRegistry } from '../../adapters/redis/redis-api-key-registry.js';
import { RedisIdempotencyStore } from '../../adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../adapters/redis/redis-pet-repository.js';
import { RedisQuotaStore } from '../../adapters/redis/redis-quota-store.js';
import { LocalRefusals } from '../../adapters/wrappers/local-refusals.js';
import { QuotaOutageFallback } from '../../adapters/wrappers/quota-outage-fallback.js';
import type { Clock } from '../../ports/clock.js';
import { CachedApiKeyRegistry } from '../../adapters/wrappers/cached-api-key-registry.js';
import type { PetStoreConfig } from '../config/config.js';
import { LayeredApiKeyRegistry } from '../../adapters/wrappers/layered-api-key-registry.js';
import { openRedis, pingRedis } from './open-redis.js';
import { configuredKeys } from './configured-keys.js';
import { TOKENS } from './tokens.js';

const REDIS: ServiceIdentifier<RedisClient> = Symbol('Redis');
/** The keys `petstore keys` issues: read by the servers' registry, managed by the CLI. */
const ISSUED_KEYS: ServiceIdentifier<RedisApiKeyRegistry> = Symbol('IssuedKeys');

/** A key's plan is re-read from Redis at most this often, so revocations spread within it. */
const KEY_CACHE_TTL_MS = 5_000;
const KEY_CACHE_ENTRIES = 100_000;
/** Refusals and bans answered by the instance itself; their strikes reach Redis within STRIKE_LAG_MS. */
const STRIKE_LAG_MS = 100;
const LOCAL_REFUSALS = 100_000;

export interface RedisStoresOptions {
  /**
   * Set: quota decisions use its time (tests). Unset: the Redis server's TIME (on a Cluster, that
   * of the shard holding the key), so skewed instance clocks cannot over-admit.
   */
  readonly quotaClock?: Clock | undefined;
  readonly commandTimeoutMs?: number | undefined;
}

/** Every port on one Redis, or one Redis Cluster, shared by all instances. */
export const redisStoresModule = ({ quotaClock, commandTimeoutMs }: RedisStoresOptions): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind<RedisClient>(REDIS)
      .toResolvedValue(
        (config, logError) =>
          openRedis(config, {
            onError: (error) => logError('redis connection error', error),
            ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }),
          }),
        [TOKENS.config, TOKENS.logError],
      )
      .inSingletonScope()
      .onDeactivation(async (redis: RedisClient) => {
        await redis.quit().catch(() => redis.disconnect());
      });
    bind(TOKENS.petRepository)
      .toResolvedValue((redis: RedisClient, config: PetStoreConfig) => new RedisPetRepository(redis, config.redisPrefix), [REDIS, TOKENS.config])
      .inSingletonScope();
    bind(TOKENS.orderRepository)
      .toResolvedValue((redis: RedisClient, config: PetStoreConfig) => new RedisOrderRepository(redis, config.redisPrefix), [REDIS, TOKENS.config])
      .inSingletonScope();
    bind(TOKENS.idempotencyStore)
      .toResolvedValue((redis: RedisClient, config: PetStoreConfig) => new RedisIdempotencyStore(redis, config.redisPrefix), [REDIS, TOKENS.config])
      .inSingletonScope();
    bind(ISSUED_KEYS)
      .toResolvedValue((redis: RedisClient, config: PetStoreConfig, clock: Clock) => new RedisApiKeyRegistry(redis, config.redisPrefix, clock), [
        REDIS,
        TOKENS.config,
        TOKENS.clock,
      ])
      .inSingletonScope();
    bind(TOKENS.keyAdmin).toService(ISSUED_KEYS);
    bind(TOKENS.apiKeyRegistry)
      .toResolvedValue(
        async (issued: RedisApiKeyRegistry, config: PetStoreConfig, clock: Clock) =>
          new LayeredApiKeyRegistry(await configuredKeys(config), new CachedApiKeyRegistry(issued, clock, KEY_CACHE_TTL_MS, KEY_CACHE_ENTRIES)),
        [ISSUED_KEYS, TOKENS.config, TOKENS.clock],
      )
      .inSingletonScope();
    bind(TOKENS.quotaStore)
      .toResolvedValue(
        (redis: RedisClient, config: PetStoreConfig, clock: Clock, logError: (message: string, error: unknown) => void) => {
          const redisQuotas = new RedisQuotaStore(redis, { prefix: config.redisPrefix, time: quotaClock ?? 'server' });
          const localRefusals = new LocalRefusals(redisQuotas, redisQuotas, clock, {
            strikeLagMs: STRIKE_LAG_MS,
            maxEntries: LOCAL_REFUSALS,
            schedule: (flush, delayMs) => setTimeout(flush, delayMs).unref(),
            onFlushError: (error) => logError('quota strikes not recorded', error),
          });
          return new QuotaOutageFallback(localRefusals, config.quotaFallback, new MemoryQuotaStore(clock), clock);
        },
        [REDIS, TOKENS.config, TOKENS.clock, TOKENS.logError],
      )
      .inSingletonScope();
    // Readiness pings through the client the stores use: its command timeout and reconnection
    // included; on a Cluster, every master.
    bind(TOKENS.storeProbes).toResolvedValue((redis: RedisClient) => [{ store: 'redis', ping: () => pingRedis(redis) }], [REDIS]);
  });
