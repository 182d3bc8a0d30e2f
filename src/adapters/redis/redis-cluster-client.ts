import { Cluster, type ClusterOptions, type Redis } from 'ioredis';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { OutageListener } from '../store-outages.js';
import { failFastConnection, outageListeners, reconnectDelayMs, REDIS_COMMAND_TIMEOUT_MS, sendClusterCorkedNow, writeOncePerTurn } from './redis-client.js';

export interface RedisNodeAddress {
  readonly host: string;
  readonly port: number;
}

export interface RedisClusterClientOptions {
  /** Some nodes of the Cluster: the client learns the others, and who holds which slot, from them. */
  readonly nodes: readonly RedisNodeAddress[];
  /** Sent by AUTH to every node (the `default` user); none: the nodes ask for none. */
  readonly password?: string;
  /** Told when a node (or the Cluster as a whole) fails, and when every one answers again; each failing command also rejects on its own. */
  readonly outages?: OutageListener;
  /** Defaults to REDIS_COMMAND_TIMEOUT_MS. */
  readonly commandTimeoutMs?: number;
}

/** How long the start may take: the slots read, the Cluster's state checked, every master answering a PING. */
const START_DEADLINE_MS = 5_000;

const keyOf = ({ host, port }: { readonly host?: string | undefined; readonly port?: number | undefined }): string => `${host}:${port}`;

/**
 * A Cluster client with the stance of createRedisClient: every node's connection has its
 * settings (command timeout, no resend), nothing is queued while the Cluster or the node of
 * a command's slot is not connected, and each lost node reconnects by itself with the same
 * backoff, so a restarted shard serves again within a second of its return.
 *
 * Redirections are followed: MOVED (a slot now served by another master; the slots are then
 * read again) and ASK (a slot being migrated) at once, TRYAGAIN (a script over keys of a slot
 * half migrated) after 50 ms, all within the command's timeout. A command cut off by a lost
 * connection or answered CLUSTERDOWN fails at once (503), as on one Redis.
 *
 * Resolves once the slots are known, the Cluster's state is ok and every master answered a
 * PING; rejects with StoreUnavailableError (and stops retrying) otherwise.
 */
export const createRedisClusterClient = async ({
  nodes,
  password,
  outages,
  commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS,
}: RedisClusterClientOptions): Promise<Cluster> => {
  const cluster = new Cluster(
    nodes.map(({ host, port }) => ({ host, port })),
    {
      lazyConnect: true,
      enableOfflineQueue: false,
      clusterRetryStrategy: reconnectDelayMs,
      // ioredis's default is to drop a lost node and wait for a MOVED that a restarted shard
      // holding the same slots never sends.
      clusterNodeRetryStrategy: reconnectDelayMs,
      retryDelayOnFailover: 0,
      retryDelayOnClusterDown: 0,
      retryDelayOnMoved: 0,
      retryDelayOnTryAgain: 50,
      maxRedirections: 8,
      enableAutoPipelining: false,
      redisOptions: { ...failFastConnection(commandTimeoutMs), ...(password === undefined ? {} : { password }) },
    } satisfies ClusterOptions,
  );
  const where = `Redis Cluster at ${nodes.map(keyOf).join(',')}`;
  // One report per outage of each node, none before the start (which has its own message).
  let started = false;
  let startError: Error | undefined;
  const down = new Set<string>();
  const report = (error: Error, key: string): void => {
    if (!started) {
      startError ??= error;
      return;
    }
    if (down.has(key)) return;
    down.add(key);
    outages?.unavailable(error);
  };
  const recovered = (key: string): void => {
    if (down.delete(key) && down.size === 0) outages?.available();
  };
  cluster.on('error', (error: Error) => report(error, where));
  cluster.on('node error', (error: Error, key: string) => report(error, key));
  cluster.on('ready', () => recovered(where));
  sendClusterCorkedNow(cluster);
  cluster.on('+node', (node: Redis) => {
    writeOncePerTurn(node);
    node.on('ready', () => recovered(keyOf(node.options)));
  });
  let deadline: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      (async () => {
        await cluster.connect();
        await pingMasters(cluster);
      })(),
      new Promise<never>((_, reject) => {
        deadline = setTimeout(() => reject(new Error(`not ready within ${START_DEADLINE_MS} ms (is cluster_state ok?)`)), START_DEADLINE_MS);
      }),
    ]);
  } catch (error) {
    cluster.disconnect();
    throw new StoreUnavailableError(where, { cause: startError ?? error });
  } finally {
    clearTimeout(deadline);
  }
  started = true;
  if (outages !== undefined) outageListeners.set(cluster, outages);
  return cluster;
};

/**
 * A PING to every master the client knows, each through its own connection: resolves once all
 * answered. Also connects them, so the first requests do not find a connection still opening.
 */
export const pingMasters = async (cluster: Cluster): Promise<void> => {
  await Promise.all(cluster.nodes('master').map((node) => node.ping()));
};
