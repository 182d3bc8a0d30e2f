import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from './redis-client.js';

/** What a Redis keeps across a restart: an append-only file, RDB snapshots, or nothing. */
export interface RedisPersistence {
  readonly appendOnly: boolean;
  /** The `save` rule: empty means no snapshots. */
  readonly snapshots: string;
}

const persistenceOf = async (node: Redis): Promise<RedisPersistence> => {
  const [, appendOnly] = (await node.config('GET', 'appendonly')) as [string, string];
  const [, snapshots] = (await node.config('GET', 'save')) as [string, string];
  return { appendOnly: appendOnly === 'yes', snapshots: snapshots.trim() };
};

/**
 * The persistence of every node that holds data (each master of a Cluster). Rejects where
 * CONFIG is not allowed (managed Redis services often rename it).
 */
export const readRedisPersistence = async (redis: RedisClient): Promise<readonly RedisPersistence[]> =>
  Promise.all((redis instanceof Cluster ? redis.nodes('master') : [redis]).map(persistenceOf));

/** Whether a restart of such a Redis loses what it holds. */
export const losesDataOnRestart = (nodes: readonly RedisPersistence[]): boolean => nodes.some((node) => !node.appendOnly && node.snapshots === '');
