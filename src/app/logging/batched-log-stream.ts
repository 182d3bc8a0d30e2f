import type { Writable } from 'node:stream';
import { EntryBatch } from './entry-batch.js';

export interface BatchedLogStreamOptions<Entry> {
  /** An entry's line, newline included: made when its batch is written, not when it is added. */
  readonly format: (entry: Entry) => string;
  /** A batch of this many entries is written at once; a smaller one waits at most `flushIntervalMs`. */
  readonly batchEntries: number;
  readonly flushIntervalMs: number;
  /**
   * While `out` holds this many bytes it could not yet hand to the kernel (nobody reads the
   * pipe), batches are dropped rather than kept: a stalled log reader must neither stall
   * requests nor grow the process without bound.
   */
  readonly maxPendingBytes: number;
  /** Told how many lines were dropped, once `out` takes lines again, before the batch it takes. */
  readonly onDropped: (lines: number) => void;
}

/**
 * Log lines on their way to stdout, in batches (EntryBatch). An entry (a finished request) is
 * only pushed onto an array when it is added; its line is made with the rest of its batch, in
 * one loop, and one write(2) carries them all.
 *
 * stdout as Node opens it is written without blocking when it is a pipe or a socket (what the
 * kernel does not take yet waits in memory), synchronously when it is a file or a terminal.
 * pino's own destination (sonic-boom) measured the UTF-8 length of the whole batch gathered so
 * far on every line and wrote each batch through libuv's thread pool.
 */
export class BatchedLogStream<Entry> {
  readonly #batch: EntryBatch<Entry>;
  #dropped = 0;

  constructor(
    private readonly out: Writable,
    private readonly options: BatchedLogStreamOptions<Entry>,
  ) {
    this.#batch = new EntryBatch((entries) => this.#writeOut(entries, ''), options.batchEntries, options.flushIntervalMs);
  }

  add(entry: Entry): void {
    this.#batch.add(entry);
  }

  /** pino's destination interface: a line (newline included) written at once, behind the entries added before it. */
  write(line: string): void {
    this.#writeOut(this.#batch.take(), line);
  }

  /** Writes the entries added so far now. */
  flush(): void {
    this.#batch.flush();
  }

  /**
   * Writes what is gathered and resolves once `out` has written everything it was given, or
   * after `timeoutMs` (a reader that never reads must not hold the exit). `out` stays open.
   */
  drain(timeoutMs: number): Promise<void> {
    this.flush();
    if (this.out.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      // Writes complete in order: the callback of an empty one comes once all before it are out.
      this.out.write('', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** `entries`' lines, then `last` (a line or nothing), in one write. */
  #writeOut(entries: readonly Entry[], last: string): void {
    const lines = entries.length + (last === '' ? 0 : 1);
    if (lines === 0) return;
    if (this.out.writableLength >= this.options.maxPendingBytes) {
      this.#dropped += lines;
      return;
    }
    if (this.#dropped > 0) {
      // Told before this batch is written: a line the callback logs lands ahead of it, where the gap was.
      const dropped = this.#dropped;
      this.#dropped = 0;
      this.options.onDropped(dropped);
    }
    const text = entries.length === 0 ? '' : entries.map(this.options.format).join('');
    this.out.write(last === '' ? text : text + last);
  }
}
