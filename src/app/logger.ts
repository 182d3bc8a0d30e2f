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
  /**
   * The last call: resolves once every line written so far is out, in order (a write still in
   * flight first), and ends the destination (stdout itself stays open). Await it before
   * process.exit, as the destination writes asynchronously. Gives up after a second.
   */
  close(): Promise<void>;
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
    close: () =>
      new Promise<void>((resolve) => {
        // sonic-boom's flush(cb) does not wait for a write in flight; end() does, and leaves fd 1 open.
        const boom = stream as { end?: () => void; once?: (event: string, listener: () => void) => void; destroyed?: boolean };
        if (boom.end === undefined || boom.once === undefined || boom.destroyed === true) return resolve();
        const timer = setTimeout(resolve, 1_000);
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        boom.once('close', done);
        boom.once('error', done);
        try {
          boom.end();
        } catch {
          done();
        }
      }),
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
