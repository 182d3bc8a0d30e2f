/**
 * The request latency histogram, kept as plain numbers per method and route template and
 * written in the Prometheus text format when scraped, beside prom-client's registry.
 * prom-client's `Histogram.observe` checks and hashes the labels on every call, the largest
 * share of what metrics added to a request; here a request finds its series and bucket and
 * adds one. The text is what prom-client writes for a histogram, `le` first.
 */
export class LatencyHistogram {
  readonly #series = new Map<string, Series>();

  constructor(
    private readonly name: string,
    private readonly help: string,
    /** Ascending upper bounds in seconds; +Inf is implied. */
    private readonly bounds: readonly number[],
  ) {}

  /** `series` names the method and route one to one (an operation's id, say). */
  observe(series: string, method: string, route: string, seconds: number): void {
    let found = this.#series.get(series);
    if (found === undefined) {
      found = { method, route, labels: `method="${labelValue(method)}",route="${labelValue(route)}"`, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 };
      this.#series.set(series, found);
    }
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        found.counts[i]! += 1;
        break;
      }
    }
    found.sum += seconds;
    found.count += 1;
  }

  text(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        lines.push(`${this.name}_bucket{le="${bound}",${labels}} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket{le="+Inf",${labels}} ${count}`, `${this.name}_sum{${labels}} ${sum}`, `${this.name}_count{${labels}} ${count}`);
    }
    return `${lines.join('\n')}\n`;
  }

  /** The histogram as prom-client's `getMetricsAsJSON` gives one, so workers' histograms add up in its AggregatorRegistry. */
  json(): HistogramJson {
    const values: HistogramJson['values'] = [];
    for (const { method, route, counts, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, method, route }, value: cumulative });
      });
      values.push(
        { metricName: `${this.name}_bucket`, labels: { le: '+Inf', method, route }, value: count },
        { metricName: `${this.name}_sum`, labels: { method, route }, value: sum },
        { metricName: `${this.name}_count`, labels: { method, route }, value: count },
      );
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }
}

interface Series {
  readonly method: string;
  readonly route: string;
  /** The label set as the text format writes it, made once. */
  readonly labels: string;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export interface HistogramJson {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly aggregator: 'sum';
  readonly values: { readonly metricName: string; readonly labels: Readonly<Record<string, string | number>>; readonly value: number }[];
}

/** A label value as the text format writes it: backslash, double quote and newline escaped. */
const labelValue = (value: string): string => value.replace(/[\\"\n]/g, (char) => (char === '\n' ? '\\n' : `\\${char}`));
