import type { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { LogError } from '../adapters/http/failures.js';
import type { OnRequestFinished } from '../adapters/http/request-id.js';
import { BatchedLogStream } from './batched-log-stream.js';
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
   * Resolves once every line logged so far has been handed to the kernel, in order. Await it
   * before process.exit: a pipe is written asynchronously. Gives up after a second.
   */
  close(): Promise<void>;
}

/** Access lines wait for about this many characters (some 30 lines) before a write(2), and never longer than the flush interval. */
const BATCH_CHARS = 8_192;
const FLUSH_INTERVAL_MS = 100;
/** Unwritten log bytes past which lines are dropped (and counted) rather than kept while nobody reads stdout. */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;
const CLOSE_TIMEOUT_MS = 1_000;

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

/** Streams whose gathered lines are handed over as the process exits, a crash included: one listener for them all. */
const openStreams = new Set<BatchedLogStream>();
let exitHookInstalled = false;
const flushOnExit = (stream: BatchedLogStream): void => {
  openStreams.add(stream);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const open of openStreams) open.flush();
  });
};

/**
 * One JSON object per line on `out` (stdout). Access lines are written in batches
 * (BatchedLogStream); every other line (start-up, warnings, errors, shutdown) goes out at
 * once, behind the access lines gathered before it, so a crash right after an error loses no
 * error line.
 */
export function createLogger(level: LogLevel, out: Writable = process.stdout): PetStoreLogger {
  const format = { level, base: { pid: process.pid }, timestamp: isoTimeOncePerMs() };
  let logger: Logger | undefined;
  const batches = new BatchedLogStream(out, {
    batchChars: BATCH_CHARS,
    flushIntervalMs: FLUSH_INTERVAL_MS,
    maxPendingBytes: MAX_PENDING_BYTES,
    onDropped: (lines) => logger?.warn({ droppedLines: lines }, 'log lines dropped: stdout was not read'),
  });
  flushOnExit(batches);
  const atOnce = {
    write: (line: string): void => {
      batches.write(line);
      batches.flush();
    },
  };
  logger = pino({ ...format, redact: { paths: REDACTED, censor: '[redacted]' } }, atOnce);
  return {
    logger,
    access: pino(format, batches),
    close: async () => {
      await batches.drain(CLOSE_TIMEOUT_MS);
      openStreams.delete(batches);
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
