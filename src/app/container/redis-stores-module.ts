import { ContainerModule, type ServiceIdentifier } from 'inversify';
import type { RedisClient } from '../../adapters/redis/redis-client.js';
import { RedisApiKeyRegistry } from '../../adapters/redis/redis-api-key-registry.js';
import { RedisIdempotencyStore } from '../../adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../adapters/redis/redis-pet-repository.js';
import type { Clock } from '../../ports/clock.js';
import type { PetStoreConfig } from '../config/config.js';
import { bindIssuedKeys } from './issued-keys.js';
import { bindRedisQuotas, REDIS, redisProbe, type RedisQuotasOptions } from './redis-quotas.js';
import { TOKENS } from './tokens.js';

/** The keys `petstore keys` issues: read by the servers' registry, managed by the CLI. */
const ISSUED_KEYS: ServiceIdentifier<RedisApiKeyRegistry> = Symbol('IssuedKeys');

/** Every port on one Redis, or one Redis Cluster, shared by all instances. */
export const redisStoresModule = (options: RedisQuotasOptions): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bindRedisQuotas(bind, options);
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
    bindIssuedKeys(bind, ISSUED_KEYS);
    bind(TOKENS.storeProbes).toResolvedValue((redis: RedisClient) => [redisProbe(redis)], [REDIS]);
  });
