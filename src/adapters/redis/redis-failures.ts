import { StoreUnavailableError } from '../../domain/errors.js';

/**
 * Replies by which a reachable Redis still says it cannot serve now (loading its data, a
 * script running too long, a failover, out of memory): the caller can only answer 503.
 */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|NOREPLICAS|OOM)\b/;

/** Connection loss, timeouts and the replies above are an unavailable store; any other reply is a bug and stays as it is. */
const isUnavailability = (error: unknown): boolean =>
  error instanceof Error && (error.name !== 'ReplyError' || UNAVAILABLE_REPLY.test(error.message));

/** Awaits one Redis call, turning its unavailability into the domain's StoreUnavailableError. */
export const fromRedis = async <T>(reply: Promise<T>): Promise<T> => {
  try {
    return await reply;
  } catch (error) {
    throw isUnavailability(error) ? new StoreUnavailableError('Redis', { cause: error }) : error;
  }
};
