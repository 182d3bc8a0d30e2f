import type { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { LogError } from '../adapters/http/failures.js';
import type { OnRequestFinished } from '../adapters/http/request-id.js';
import { AccessLines } from './access-line.js';
import { BatchedLogStream } from './batched-log-stream.js';
import { isoTimeField } from './iso-time-field.js';
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
   * The access log: one line per request, in the logger's format (src/app/access-line.ts);
   * undefined when the level leaves out info lines. Never a header, a key or the configuration.
   */
  readonly access: OnRequestFinished | undefined;
  /**
   * Resolves once every line logged so far has been handed to the kernel, in order. Await it
   * before process.exit: a pipe is written asynchronously. Gives up after a second.
   */
  close(): Promise<void>;
}

/**
 * Access lines wait for about this many characters (some 120 lines) before a write(2), and never
 * longer than the flush interval: each write wakes the log reader, and at 8 K the writes took
 * a third of what the access log cost a request.
 */
const BATCH_CHARS = 32_768;
const FLUSH_INTERVAL_MS = 100;
/** Unwritten log bytes past which lines are dropped (and counted) rather than kept while nobody reads stdout. */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;
const CLOSE_TIMEOUT_MS = 1_000;

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
  const format = { level, base: { pid: process.pid }, timestamp: isoTimeField(() => Date.now()) };
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
  const accessLines = new AccessLines(process.pid, format.timestamp);
  return {
    logger,
    access: logger.isLevelEnabled('info') ? (event) => batches.write(accessLines.line(event)) : undefined,
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
