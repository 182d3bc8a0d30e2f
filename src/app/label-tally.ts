import type { Counter, LabelValues } from 'prom-client';

/**
 * Counts by label set, kept as plain numbers and handed to a prom-client Counter when it is
 * scraped (from its `collect`). A request then costs a Map lookup and an addition, where
 * `Counter.inc(labels)` validates and hashes the labels on every call.
 */
export class LabelTally<L extends string> {
  readonly #series = new Map<string, { readonly labels: LabelValues<L>; count: number }>();

  /** `key` names the label set one to one; `labels` builds it, on the set's first count only. */
  add(key: string, labels: () => LabelValues<L>): void {
    const series = this.#series.get(key);
    if (series === undefined) this.#series.set(key, { labels: labels(), count: 1 });
    else series.count += 1;
  }

  copyTo(counter: Counter<L>): void {
    counter.reset();
    for (const { labels, count } of this.#series.values()) counter.inc(labels, count);
  }
}
