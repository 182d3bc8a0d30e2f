import { ContainerModule, type ServiceIdentifier } from 'inversify';
import type { RedisClient } from '../../adapters/redis/redis-client.js';
import { RedisApiKeyRegistry } from '../../adapters/redis/redis-api-key-registry.js';
import { RedisCreditLedger } from '../../adapters/redis/redis-credit-ledger.js';
import { RedisIdempotencyStore } from '../../adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../adapters/redis/redis-pet-repository.js';
import { losesDataOnRestart, readRedisPersistence } from '../../adapters/redis/redis-persistence.js';
import type { Clock } from '../../ports/clock.js';
import type { PetStoreConfig } from '../config/config.js';
import type { PetStoreLogger } from '../logging/logger.js';
import { bindIssuedKeys } from './issued-keys.js';
import { bindRedisQuotas, REDIS, redisProbe, type RedisQuotasOptions } from './redis-quotas.js';
import { TOKENS } from './tokens.js';

/** The keys `petstore keys` issues: read by the servers' registry, managed by the CLI. */
const ISSUED_KEYS: ServiceIdentifier<RedisApiKeyRegistry> = Symbol('IssuedKeys');

/** Said once at start: with neither AOF nor RDB, the shop's records go with the next restart of Redis. */
async function warnOfVolatileRecords(redis: RedisClient, { logger }: PetStoreLogger): Promise<void> {
  let nodes;
  try {
    nodes = await readRedisPersistence(redis);
  } catch (error) {
    logger.info({ err: error }, 'redis persistence unknown (CONFIG GET refused): make sure AOF or RDB keeps the pets, orders, keys and credits');
    return;
  }
  if (losesDataOnRestart(nodes)) {
    logger.warn(
      { persistence: nodes },
      'redis keeps neither an append-only file nor snapshots: pets, orders, Idempotency-Key records, API keys and credit balances are lost when it restarts; ' +
        'enable AOF (appendonly yes, appendfsync everysec) or use PETSTORE_STORE=postgres (docs/persistence-and-upgrades.md, "Redis")',
    );
  }
}

/** Every port on one Redis, or one Redis Cluster, shared by all instances. */
export const redisStoresModule = (options: RedisQuotasOptions): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bindRedisQuotas(bind, options);
    bind(TOKENS.petRepository)
      .toResolvedValue(
        async (redis: RedisClient, config: PetStoreConfig, log: PetStoreLogger) => {
          await warnOfVolatileRecords(redis, log);
          return new RedisPetRepository(redis, config.redisPrefix);
        },
        [REDIS, TOKENS.config, TOKENS.logger],
      )
      .inSingletonScope();
    bind(TOKENS.orderRepository)
      .toResolvedValue((redis: RedisClient, config: PetStoreConfig) => new RedisOrderRepository(redis, config.redisPrefix), [REDIS, TOKENS.config])
      .inSingletonScope();
    bind(TOKENS.idempotencyStore)
      .toResolvedValue((redis: RedisClient, config: PetStoreConfig) => new RedisIdempotencyStore(redis, config.redisPrefix), [REDIS, TOKENS.config])
      .inSingletonScope();
    // Here, not in bindRedisQuotas: on the postgres store, credits are records of PostgreSQL.
    bind(TOKENS.creditLedger)
      .toResolvedValue((redis: RedisClient, config: PetStoreConfig) => new RedisCreditLedger(redis, config.redisPrefix), [REDIS, TOKENS.config])
      .inSingletonScope();
    bind(ISSUED_KEYS)
      .toResolvedValue((redis: RedisClient, config: PetStoreConfig, clock: Clock) => new RedisApiKeyRegistry(redis, config.redisPrefix, clock), [
        REDIS,
        TOKENS.config,
        TOKENS.clock,
      ])
      .inSingletonScope();
    bindIssuedKeys(bind, ISSUED_KEYS);
    bind(TOKENS.storeProbes).toResolvedValue((redis: RedisClient) => [redisProbe(redis)], [REDIS]);
  });
