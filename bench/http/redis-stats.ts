import { Redis } from 'ioredis';

export type CommandCounts = Readonly<Record<string, number>>;

/** Connects once, or answers undefined when no Redis answers (the bench then skips the Redis store). */
export const connectRedis = async (url: string): Promise<Redis | undefined> => {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch {
    redis.disconnect();
    return undefined;
  }
};

/**
 * Calls per command since the server started (INFO commandstats). Commands a Lua script runs
 * are counted too, under their own names, beside the EVALSHA that ran them.
 */
export const commandCounts = async (redis: Redis): Promise<CommandCounts> => {
  const info = await redis.info('commandstats');
  const counts: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
};

/** Calls per command between two snapshots, INFO itself left out. */
export const callsBetween = (before: CommandCounts, after: CommandCounts): CommandCounts =>
  Object.fromEntries(
    Object.entries(after)
      .filter(([command]) => command !== 'info')
      .map(([command, calls]) => [command, calls - (before[command] ?? 0)] as const)
      .filter(([, calls]) => calls > 0),
  );

/** Deletes the keys under `prefix` and nothing else: SCAN + UNLINK, never FLUSHDB. */
export const deleteKeysUnder = async (redis: Redis, prefix: string): Promise<number> => {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
};

export const redisVersion = async (redis: Redis): Promise<string> =>
  /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
