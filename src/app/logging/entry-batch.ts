/**
 * Finished requests are handled 128 at a time (the access log's batch is some 34 KB, one
 * write(2)), and never more than 100 ms after the first.
 */
export const FINISHED_REQUESTS_BATCH = { size: 128, maxWaitMs: 100 } as const;

/**
 * Entries handled together rather than one by one: handed to `handle` once `size` of them are
 * in, or `maxWaitMs` after the first. The access log and the metrics take finished requests so:
 * a request's close only pushes its event, and one loop over many events keeps the code and
 * data it needs in the cache (docs/decisions.md, "Access log and metrics: what they cost").
 */
export class EntryBatch<Entry> {
  #entries: Entry[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly handle: (entries: readonly Entry[]) => void,
    private readonly size: number,
    private readonly maxWaitMs: number,
  ) {}

  add(entry: Entry): void {
    this.#entries.push(entry);
    if (this.#entries.length >= this.size) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.maxWaitMs).unref();
  }

  /** Hands what is gathered to `handle` now. */
  flush(): void {
    const entries = this.take();
    if (entries.length > 0) this.handle(entries);
  }

  /** Takes what is gathered, for the caller to handle itself. */
  take(): Entry[] {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const entries = this.#entries;
    if (entries.length > 0) this.#entries = [];
    return entries;
  }
}
