import { outageListeners, type RedisClient } from './redis-client.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import { QUOTA_LAYOUT_ERROR } from './quota-script.lua.js';

/**
 * Replies by which a reachable Redis still says it cannot serve now (loading its data, a
 * script running too long, a failover, out of memory), or cannot serve this instance (quota
 * counters of a layout it does not read, written by a newer instance): the caller can only answer 503.
 */
const UNAVAILABLE_REPLY = new RegExp(`^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|NOREPLICAS|OOM|${QUOTA_LAYOUT_ERROR})\\b`);

/** Connection loss, timeouts and the replies above are an unavailable store; any other reply is a bug and stays as it is. */
const isUnavailability = (error: unknown): boolean =>
  error instanceof Error && (error.name !== 'ReplyError' || UNAVAILABLE_REPLY.test(error.message));

/** A failure one call of a batched script answered (its own error reply): unavailability as StoreUnavailableError, as fromRedis does. */
export const failureOfCall = (error: Error): Error => (isUnavailability(error) ? new StoreUnavailableError('Redis', { cause: error }) : error);

/**
 * Sends one Redis call and awaits it, turning unavailability into the domain's
 * StoreUnavailableError. Calls go only to a connection that is ready and not suspected: a
 * timed-out command means a Redis that accepts but does not answer (frozen, overloaded), so
 * until a PING is answered again every call fails at once instead of waiting out a timeout
 * of its own. (ioredis itself would call a fresh connection to such a Redis ready.)
 */
export const fromRedis = async <T>(redis: RedisClient, call: () => Promise<T>): Promise<T> => {
  if (redis.status !== 'ready' || suspected.has(redis)) {
    throw new StoreUnavailableError('Redis', { cause: new Error(`connection ${redis.status}, not answering`) });
  }
  try {
    return await call();
  } catch (error) {
    if (!isUnavailability(error)) throw error;
    if (error instanceof Error && error.message === COMMAND_TIMED_OUT) suspect(redis, error);
    throw new StoreUnavailableError('Redis', { cause: error });
  }
};

/** ioredis's message for a command that outlived `commandTimeout`. */
const COMMAND_TIMED_OUT = 'Command timed out';
const PROBE_INTERVAL_MS = 100;

const suspected = new WeakSet<RedisClient>();

const suspect = (redis: RedisClient, cause: Error): void => {
  if (suspected.has(redis)) return;
  suspected.add(redis);
  outageListeners.get(redis)?.unavailable(cause);
  const probe = (): void => {
    if (redis.status === 'end') return;
    redis.ping().then(
      () => {
        suspected.delete(redis);
        outageListeners.get(redis)?.available();
      },
      () => setTimeout(probe, PROBE_INTERVAL_MS).unref(),
    );
  };
  probe();
};
