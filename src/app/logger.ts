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
   * The access lines' logger: same level, stream and format, without redaction. Its lines hold
   * only fields chosen one by one (never a header or the configuration), and redaction,
   * which walks every line logged, cost more than the rest of the line (13 of 18 µs).
   */
  readonly access: Logger;
  /**
   * The last call: resolves once every line written so far is out, in order (a write still in
   * flight first), and ends the destination (stdout itself stays open). Await it before
   * process.exit, as the destination writes asynchronously. Gives up after a second.
   */
  close(): Promise<void>;
}

/** Lines wait for this many bytes before a write(2) (about 15 access lines), and never longer than the flush interval. */
const WRITE_BATCH_BYTES = 4_096;
const FLUSH_INTERVAL_MS = 100;

/**
 * pino's ISO time, computed once per millisecond: under load many lines share one, and
 * `toISOString` cost a third of an access line.
 */
const isoTimeOncePerMs = (): (() => string) => {
  let at = Number.NaN;
  let field = '';
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
};

/**
 * One JSON object per line on stdout, written off the hot path: a request hands its line to a
 * buffer written out in batches (`sync: false`, at most FLUSH_INTERVAL_MS late; pino writes
 * what is left synchronously should the process exit). `destination` replaces stdout (tests).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): PetStoreLogger {
  const stream = destination ?? pino.destination({ dest: 1, sync: false, minLength: WRITE_BATCH_BYTES, periodicFlush: FLUSH_INTERVAL_MS });
  const format = { level, base: { pid: process.pid }, timestamp: isoTimeOncePerMs() };
  const logger = pino({ ...format, redact: { paths: REDACTED, censor: '[redacted]' } }, stream);
  return {
    logger,
    access: pino(format, stream),
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
