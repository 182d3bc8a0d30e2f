import { Redis, type Cluster, type RedisOptions } from 'ioredis';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { OutageListener } from '../store-outages.js';
import { atTurnEnd } from '../turn-end.js';

/**
 * What the stores send their commands and scripts to: one Redis (REDIS_URL), or a Redis
 * Cluster (REDIS_CLUSTER_NODES), which routes each call to the shard of its keys' slot.
 */
export type RedisClient = Redis | Cluster;

export interface RedisClientOptions {
  readonly url: string;
  /** Told of each outage (a connection error, a Redis that stops answering) and of its end; each failing command also rejects on its own. */
  readonly outages?: OutageListener;
  /** Defaults to REDIS_COMMAND_TIMEOUT_MS. */
  readonly commandTimeoutMs?: number;
}

/**
 * No request may hang on Redis: a command fails within this, and the caller answers 503.
 * The first timeout drops the connection (see fromRedis), after which the request's other
 * calls fail at once, so a request still answers within a second. Generous enough that a
 * busy event loop does not take a slow reply for an outage.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 700;

/** The reconnection backoff: 100 ms, 200 ms, ... capped at one second. */
export const reconnectDelayMs = (attempt: number): number => Math.min(50 * 2 ** attempt, 1_000);

/** The settings of each connection, to one Redis or to each node of a Cluster. */
export const failFastConnection = (commandTimeoutMs: number) =>
  ({
    commandTimeout: commandTimeoutMs,
    connectTimeout: 1_000,
    // A command cut off by a lost connection has already failed its request with a 503:
    // neither retried nor resent later, where a create would store a pet nobody was told of.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // No auto-pipelining: it holds a batch until the previous one of its slot has been
    // answered, so behind a frozen Redis a request would wait out two timeouts, not one.
    // Commands are pipelined on the connection all the same (sent without awaiting replies).
    enableAutoPipelining: false,
  }) satisfies RedisOptions;

/**
 * A client that fails fast and heals by itself: while disconnected every command rejects at
 * once (no offline queue), a command without a reply rejects after `commandTimeoutMs`,
 * and the client keeps reconnecting with a backoff capped at one second.
 * Resolves once connected; rejects with StoreUnavailableError (and stops retrying) otherwise.
 */
export const createRedisClient = async ({ url, outages, commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS }: RedisClientOptions): Promise<Redis> => {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    retryStrategy: reconnectDelayMs,
    ...failFastConnection(commandTimeoutMs),
  } satisfies RedisOptions);
  // One report per outage, none before the first connection (start-up failure has its own
  // message); without any listener ioredis would print every reconnection attempt.
  let connected = false;
  let reportable = false;
  // Before the first connection, the reason (refused, timed out, authentication) for the start-up message.
  let startError: Error | undefined;
  const lost = (cause: Error): void => {
    if (!reportable) return;
    reportable = false;
    outages?.unavailable(cause);
  };
  redis.on('error', (error: Error) => {
    if (!connected) startError ??= error;
    else lost(error);
  });
  // A connection closed by Redis and opened again within the first retry raises no error, yet its requests were answered 503.
  redis.on('reconnecting', () => lost(new Error('connection lost')));
  redis.on('ready', () => {
    if (connected && !reportable) outages?.available();
    connected = true;
    reportable = true;
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new StoreUnavailableError(`Redis at ${redactedUrl(url)}`, { cause: startError ?? error });
  }
  writeOncePerTurn(redis);
  if (outages !== undefined) outageListeners.set(redis, outages);
  return redis;
};

/** Who hears of a client's outages that only its calls notice (a Redis that accepts but does not answer: redis-failures.ts). */
export const outageListeners = new WeakMap<RedisClient, OutageListener>();

/** What sends a client's corked commands now, per client (a Cluster's: each of its connections'). */
const sendersNow = new WeakMap<RedisClient, () => void>();

/**
 * Sends the commands a client holds corked for the turn's end now: a batch that filled up
 * (TurnBatch) then reaches Redis while the instance still parses the turn's other requests,
 * instead of every batch of the turn leaving together at its end.
 */
export const sendCorkedNow = (redis: RedisClient): void => sendersNow.get(redis)?.();

/**
 * The commands a connection is given in one turn of the event loop leave in one write: the
 * socket is corked at the turn's first command and uncorked before the next turn (or when a
 * batch fills: sendCorkedNow). Each command would otherwise be a write of its own (a syscall,
 * and a wake-up of Redis), which the profile of the Redis list found to be a third of the
 * service's CPU. Unlike ioredis' auto-pipelining, nothing waits for an earlier batch's
 * replies. The uncork runs after the pages and quota calls batched in the turn (TurnBatch)
 * are sent, so they leave in the same write.
 */
export function writeOncePerTurn(redis: Redis): void {
  const send = redis.sendCommand.bind(redis);
  let corked: Redis['stream'] | undefined;
  const uncork = (): void => {
    const socket = corked;
    corked = undefined;
    socket?.uncork();
  };
  sendersNow.set(redis, uncork);
  redis.sendCommand = (command, stream) => {
    const socket = redis.stream;
    if (corked === undefined && socket !== undefined) {
      corked = socket;
      socket.cork();
      atTurnEnd(uncork);
    }
    return send(command, stream);
  };
}

/** A Cluster's corked commands are its connections': sendCorkedNow sends each's. */
export function sendClusterCorkedNow(cluster: Cluster): void {
  sendersNow.set(cluster, () => {
    for (const node of cluster.nodes()) sendCorkedNow(node);
  });
}

/** The URL without its password, fit for an error message. */
const redactedUrl = (url: string): string => {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
};
