import type { Bind, ServiceIdentifier } from 'inversify';
import { MemoryQuotaStore } from '../../adapters/memory/memory-quota-store.js';
import type { RedisClient } from '../../adapters/redis/redis-client.js';
import { RedisConcurrencySlots } from '../../adapters/redis/redis-concurrency-slots.js';
import { RedisQuotaStore } from '../../adapters/redis/redis-quota-store.js';
import { LocalRefusals } from '../../adapters/wrappers/local-refusals.js';
import { QuotaOutageFallback } from '../../adapters/wrappers/quota-outage-fallback.js';
import type { Clock } from '../../ports/clock.js';
import type { PetStoreConfig } from '../config/config.js';
import type { PetStoreLogger } from '../logging/logger.js';
import { ProbeFailure, type StoreProbe } from '../admin/store-probes.js';
import { openRedis, pingRedis } from './open-redis.js';
import { TOKENS } from './tokens.js';
import { CHANGES_REACH_INSTANCES_MS } from '../../adapters/change-propagation.js';

/** The Redis (or Redis Cluster) client every Redis binding of a container shares. */
export const REDIS: ServiceIdentifier<RedisClient> = Symbol('Redis');

/** Refusals and bans answered by the instance itself; their strikes reach Redis within STRIKE_LAG_MS. */
const STRIKE_LAG_MS = 100;
const LOCAL_REFUSALS = 100_000;

export interface RedisQuotasOptions {
  /**
   * Set: quota decisions use its time (tests). Unset: the Redis server's TIME (on a Cluster, that
   * of the shard holding the key), so skewed instance clocks cannot over-admit.
   */
  readonly quotaClock?: Clock | undefined;
  readonly commandTimeoutMs?: number | undefined;
}

/** Readiness pings through the client the stores use: its command timeout and reconnection included; on a Cluster, every master. */
export const redisProbe = (redis: RedisClient): StoreProbe => ({
  store: 'redis',
  ping: () =>
    pingRedis(redis).catch((error: unknown) => {
      throw new ProbeFailure(pingFailure(redis.status, error instanceof Error ? error.message : String(error)));
    }),
});

/** ioredis's words for a call it could not send: the connection is gone, whatever its status says yet. */
const NO_CONNECTION = /Stream isn't writeable|Connection is closed/;

/**
 * Why PING failed, in words an operator reads, and the client's own text as the detail: ioredis
 * says "Stream isn't writeable and enableOfflineQueue options is false" of a Redis it cannot reach.
 */
export const pingFailure = (status: string, message: string): { readonly reason: string; readonly detail: string } => {
  if (status !== 'ready' || NO_CONNECTION.test(message)) return { reason: `no connection to Redis (the client ${status === 'ready' ? 'lost it' : `is ${status}`})`, detail: message };
  if (/timed out/i.test(message)) return { reason: 'Redis did not answer PING in time', detail: message };
  return { reason: 'Redis refused PING', detail: message };
};

/**
 * The Redis client and the quota store on it, shared by every instance: what the `redis` and
 * `postgres` stores have in common (counters, strikes and bans may be lost with Redis).
 */
export function bindRedisQuotas(bind: Bind, { quotaClock, commandTimeoutMs }: RedisQuotasOptions): void {
  bind<RedisClient>(REDIS)
    .toResolvedValue(
      (config, outageLog) =>
        openRedis(config, {
          outages: outageLog.listenerFor('redis'),
          ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }),
        }),
      [TOKENS.config, TOKENS.outageLog],
    )
    .inSingletonScope()
    .onDeactivation(async (redis: RedisClient) => {
      await redis.quit().catch(() => redis.disconnect());
    });
  bind(TOKENS.quotaStore)
    .toResolvedValue(
      (
        redis: RedisClient,
        config: PetStoreConfig,
        clock: Clock,
        logError: (message: string, error: unknown) => void,
        log: PetStoreLogger,
        state: { active: boolean },
      ) => {
        const redisQuotas = new RedisQuotaStore(redis, { prefix: config.redisPrefix, time: quotaClock ?? 'server' });
        const localRefusals = new LocalRefusals(redisQuotas, redisQuotas, clock, {
          strikeLagMs: STRIKE_LAG_MS,
          maxEntries: LOCAL_REFUSALS,
          recheckMs: CHANGES_REACH_INSTANCES_MS,
          schedule: (flush, delayMs) => setTimeout(flush, delayMs).unref(),
          onFlushError: (error) => logError('quota strikes not recorded', error),
        });
        const fallback = config.quotaFallback;
        // The moment quotas become per instance (local) or uncounted (allow), and the moment Redis decides again: a line each, and the gauge.
        const onServing = (serving: boolean): void => {
          state.active = serving;
          if (serving) log.logger.warn({ store: 'redis', fallback }, `quota outage fallback serving: quotas are decided by PETSTORE_QUOTA_FALLBACK=${fallback}`);
          else log.logger.info({ store: 'redis', fallback }, 'quota outage fallback stopped: Redis decides quotas again');
        };
        return new QuotaOutageFallback(localRefusals, fallback, new MemoryQuotaStore(clock), clock, onServing);
      },
      [REDIS, TOKENS.config, TOKENS.clock, TOKENS.logError, TOKENS.logger, TOKENS.quotaFallback],
    )
    .inSingletonScope();
  // No outage fallback: a cap that cannot reach its slots answers 503 rather than admit past N.
  bind(TOKENS.concurrencySlots)
    .toResolvedValue(
      (redis: RedisClient, config: PetStoreConfig) => new RedisConcurrencySlots(redis, { prefix: config.redisPrefix, time: quotaClock ?? 'server' }),
      [REDIS, TOKENS.config],
    )
    .inSingletonScope();
}
