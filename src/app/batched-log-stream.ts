import type { Writable } from 'node:stream';

export interface BatchedLogStreamOptions {
  /** A batch of this many characters is handed to `out` at once; a smaller one waits at most `flushIntervalMs`. */
  readonly batchChars: number;
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
 * Log lines on their way to stdout, gathered into batches: a request hands its access line
 * over with an array push, and one write(2) carries many lines. stdout as Node opens it is
 * written without blocking when it is a pipe or a socket (what the kernel does not take yet
 * waits in memory), synchronously when it is a file or a terminal.
 *
 * pino's own destination (sonic-boom) measured the UTF-8 length of the whole batch gathered so
 * far on every line, flattening it each time, and wrote each batch through libuv's thread pool:
 * 4 µs per access line at 4 KiB batches, more with larger ones, where this costs 1 µs
 * (docs/decisions.md, "Access log and metrics: what they cost").
 */
export class BatchedLogStream {
  #lines: string[] = [];
  #chars = 0;
  #timer: NodeJS.Timeout | undefined;
  #dropped = 0;

  constructor(
    private readonly out: Writable,
    private readonly options: BatchedLogStreamOptions,
  ) {}

  /** pino's destination interface: one line, newline included. */
  write(line: string): void {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= this.options.batchChars) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.options.flushIntervalMs).unref();
  }

  /** Hands whatever is gathered to `out` now. */
  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#lines.length === 0) return;
    const batch = this.#lines.join('');
    const lines = this.#lines.length;
    this.#lines = [];
    this.#chars = 0;
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
    this.out.write(batch);
  }

  /**
   * Hands over what is gathered and resolves once `out` has written everything it was given,
   * or after `timeoutMs` (a reader that never reads must not hold the exit). `out` stays open.
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
}
