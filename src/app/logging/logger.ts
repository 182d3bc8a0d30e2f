import type { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { LogError } from '../../adapters/http/wire/failures.js';
import type { OnRequestFinished, RequestFinishedEvent } from '../../adapters/http/wire/request-finished.js';
import { AccessLines } from './access-line.js';
import { BatchedLogStream } from './batched-log-stream.js';
import { FINISHED_REQUESTS_BATCH } from './entry-batch.js';
import { isoTimeField } from './iso-time-field.js';
import type { LogLevel } from '../config/config.js';

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
   * The access log: one line per request, in the logger's format (src/app/access-line.ts), at
   * info level whatever the logger's level: PETSTORE_ACCESS_LOG=on asks for it, and
   * PETSTORE_LOG_LEVEL=warn (fewer lines of the rest) must not take it away unsaid. Never a
   * header, a key or the configuration.
   */
  readonly access: OnRequestFinished;
  /**
   * Resolves once every line logged so far has been handed to the kernel, in order. Await it
   * before process.exit: a pipe is written asynchronously. Gives up after a second.
   */
  close(): Promise<void>;
}

/** Unwritten log bytes past which lines are dropped (and counted) rather than kept while nobody reads stdout. */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;
const CLOSE_TIMEOUT_MS = 1_000;

/** Streams whose gathered lines are handed over as the process exits, a crash included: one listener for them all. */
const openStreams = new Set<BatchedLogStream<RequestFinishedEvent>>();
let exitHookInstalled = false;
const flushOnExit = (stream: BatchedLogStream<RequestFinishedEvent>): void => {
  openStreams.add(stream);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const open of openStreams) open.flush();
  });
};

/**
 * One JSON object per line on `out` (stdout). Access lines are made and written in batches
 * (BatchedLogStream); every other line (start-up, warnings, errors, shutdown) goes out at
 * once, behind the access lines of the requests finished before it, so a crash right after an
 * error loses no error line.
 */
export function createLogger(level: LogLevel, out: Writable = process.stdout): PetStoreLogger {
  const timeField = isoTimeField();
  const accessLines = new AccessLines(process.pid, timeField);
  let logger: Logger | undefined;
  const stream = new BatchedLogStream<RequestFinishedEvent>(out, {
    format: (event) => accessLines.line(event),
    // Each write wakes the log reader: at 8 KB batches the writes took a third of what the access log cost a request.
    batchEntries: FINISHED_REQUESTS_BATCH.size,
    flushIntervalMs: FINISHED_REQUESTS_BATCH.maxWaitMs,
    maxPendingBytes: MAX_PENDING_BYTES,
    onDropped: (lines) => logger?.warn({ droppedLines: lines }, 'log lines dropped: stdout was not read'),
  });
  flushOnExit(stream);
  logger = pino({ level, base: { pid: process.pid }, timestamp: () => timeField(Date.now()), redact: { paths: REDACTED, censor: '[redacted]' } }, stream);
  return {
    logger,
    access: (event) => stream.add(event),
    close: async () => {
      await stream.drain(CLOSE_TIMEOUT_MS);
      openStreams.delete(stream);
    },
  };
}

/** Unexpected failures, with the request they broke. */
export const errorLogger =
  (logger: Logger): LogError =>
  (message, error, requestId) =>
    logger.error(requestId === undefined ? { err: error } : { err: error, requestId }, message);
