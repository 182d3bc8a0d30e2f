import type { Counter, LabelValues } from 'prom-client';

interface Series<L extends string> {
  readonly labels: LabelValues<L>;
  count: number;
}

/**
 * Counts by label set, kept as plain numbers and handed to a prom-client Counter when it is
 * scraped (from its `collect`). A label set is found by two keys the caller already holds
 * (an operation's id and a status, say) in two Map lookups: no label object, no string built
 * per count, where `Counter.inc(labels)` validates and hashes the labels on every call.
 */
export class LabelTally<L extends string, E> {
  readonly #series = new Map<string, Map<string | number, Series<L>>>();

  /** `labelsOf` builds the label set of what is counted, on the set's first count only. */
  constructor(private readonly labelsOf: (counted: E) => LabelValues<L>) {}

  /** `first` and `second` together name the label set of `counted` one to one. */
  add(first: string, second: string | number, counted: E): void {
    let seconds = this.#series.get(first);
    if (seconds === undefined) {
      seconds = new Map();
      this.#series.set(first, seconds);
    }
    const series = seconds.get(second);
    if (series === undefined) seconds.set(second, { labels: this.labelsOf(counted), count: 1 });
    else series.count += 1;
  }

  copyTo(counter: Counter<L>): void {
    counter.reset();
    for (const seconds of this.#series.values()) for (const { labels, count } of seconds.values()) counter.inc(labels, count);
  }
}
