import { Cluster } from 'ioredis';
import { createRedisClient, type RedisClient } from '../../adapters/redis/redis-client.js';
import { createRedisClusterClient, pingMasters } from '../../adapters/redis/redis-cluster-client.js';
import type { OutageListener } from '../../adapters/store-outages.js';
import type { PetStoreConfig } from '../config/config.js';

export interface OpenRedisOptions {
  readonly outages?: OutageListener;
  readonly commandTimeoutMs?: number;
}

/** The client of the configured Redis: a Cluster's with REDIS_CLUSTER_NODES, else one Redis's at REDIS_URL. */
export const openRedis = (config: PetStoreConfig, options: OpenRedisOptions = {}): Promise<RedisClient> =>
  config.redisCluster === undefined
    ? createRedisClient({ url: config.redisUrl, ...options })
    : createRedisClusterClient({ ...config.redisCluster, ...options });

/** Whether the stores can be served: a Cluster only when every master answers, since each holds some keys. */
export const pingRedis = async (redis: RedisClient): Promise<void> => {
  await (redis instanceof Cluster ? pingMasters(redis) : redis.ping());
};
