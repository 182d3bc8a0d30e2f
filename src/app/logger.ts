import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogError } from '../adapters/http/failures.js';
import type { OnRequestFinished } from '../adapters/http/request-id.js';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

/**
 * Fields that could carry a secret, wherever an object logged might hold them: the logger is
 * never given raw headers or the Redis URL, and these paths are censored should one slip in.
 */
const REDACTED = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'redisUrl',
  '*.redisUrl',
  'password',
  '*.password',
  'apiKey',
  '*.apiKey',
];

export interface PetStoreLogger {
  readonly logger: Logger;
  /** Writes out what is buffered: call before process.exit, the destination writes asynchronously. */
  flush(): void;
}

/**
 * One JSON object per line on stdout, written off the hot path (`sync: false`): a request hands
 * its line to a buffer, not to a write(2). `destination` replaces stdout (tests).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): PetStoreLogger {
  const stream = destination ?? pino.destination({ dest: 1, sync: false });
  const logger = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED, censor: '[redacted]' },
    },
    stream,
  );
  return {
    logger,
    flush: () => {
      const boom = stream as { flushSync?: () => void };
      try {
        boom.flushSync?.();
      } catch {
        // Not open yet, or already closed: nothing buffered can be written anyway.
      }
    },
  };
}

/** Unexpected failures, with the request they broke. */
export const errorLogger =
  (logger: Logger): LogError =>
  (message, error, requestId) =>
    logger.error(requestId === undefined ? { err: error } : { err: error, requestId }, message);

/** One access line per request: no header, no key, only its digest's first 8 hex digits. */
export const accessLogger =
  (logger: Logger): OnRequestFinished =>
  (event) =>
    logger.info(
      {
        requestId: event.requestId,
        method: event.method,
        route: event.route,
        status: event.status,
        durationMs: Math.round(event.durationMs * 100) / 100,
        key: event.key,
        plan: event.plan,
        verdict: event.verdict,
        ...(event.completed ? {} : { aborted: true }),
      },
      'request',
    );
