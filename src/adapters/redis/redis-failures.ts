import type { Redis } from 'ioredis';
import { StoreUnavailableError } from '../../domain/errors.js';

/**
 * Replies by which a reachable Redis still says it cannot serve now (loading its data, a
 * script running too long, a failover, out of memory): the caller can only answer 503.
 */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|NOREPLICAS|OOM)\b/;

/** Connection loss, timeouts and the replies above are an unavailable store; any other reply is a bug and stays as it is. */
const isUnavailability = (error: unknown): boolean =>
  error instanceof Error && (error.name !== 'ReplyError' || UNAVAILABLE_REPLY.test(error.message));

/**
 * Awaits one Redis call, turning its unavailability into the domain's StoreUnavailableError.
 * A timed-out command means a Redis that accepts but does not answer (frozen, overloaded):
 * the connection is dropped and reopened, so that until Redis answers again every command
 * fails at once, instead of each request waiting out its own timeout.
 */
export const fromRedis = async <T>(redis: Redis, reply: Promise<T>): Promise<T> => {
  try {
    return await reply;
  } catch (error) {
    if (!isUnavailability(error)) throw error;
    if (error instanceof Error && error.message === COMMAND_TIMED_OUT && redis.status === 'ready') redis.disconnect(true);
    throw new StoreUnavailableError('Redis', { cause: error });
  }
};

/** ioredis's message for a command that outlived `commandTimeout`. */
const COMMAND_TIMED_OUT = 'Command timed out';
