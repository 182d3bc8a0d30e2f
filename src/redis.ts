/** `petstore-service/redis`: every port on one Redis (or a Redis Cluster's slots), shared by every instance. */
export { createRedisClient, REDIS_COMMAND_TIMEOUT_MS, type RedisClient, type RedisClientOptions } from './adapters/redis/redis-client.js';
export { createRedisClusterClient, type RedisClusterClientOptions, type RedisNodeAddress } from './adapters/redis/redis-cluster-client.js';
export { RedisPetRepository } from './adapters/redis/redis-pet-repository.js';
export { RedisOrderRepository } from './adapters/redis/redis-order-repository.js';
export { RedisIdempotencyStore } from './adapters/redis/redis-idempotency-store.js';
export { RedisApiKeyRegistry } from './adapters/redis/redis-api-key-registry.js';
export { RedisQuotaStore, type RedisQuotaStoreOptions } from './adapters/redis/redis-quota-store.js';
export { RedisCreditLedger } from './adapters/redis/redis-credit-ledger.js';
