import autocannon from 'autocannon';

/** What every connection sends, in a loop. */
export interface Load {
  readonly method: 'GET' | 'POST';
  /** Under the server's base URL, e.g. `/pets?limit=20`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Per connection: the Authorization values it cycles through (spread over many keys). */
  readonly authorizationsOf?: (connection: number) => readonly string[];
}

export interface Measurement {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Of all responses. */
  readonly non2xxShare: number;
  readonly responses: number;
  /** Socket errors and timeouts: a run with any is not a fair figure. */
  readonly errors: number;
  readonly statusCounts: Readonly<Record<string, number>>;
}

/**
 * One autocannon run of `seconds` with `connections` keep-alive connections. Latencies are
 * taken from every response (2xx or not) in fractions of a millisecond: autocannon's own
 * histogram rounds to whole milliseconds, too coarse at these speeds.
 */
export const runLoad = (baseUrl: string, load: Load, connections: number, seconds: number): Promise<Measurement> => {
  const base = new URL(baseUrl);
  const path = base.pathname + load.path;
  let connection = 0;
  const setupClient =
    load.authorizationsOf === undefined
      ? undefined
      : (client: autocannon.Client): void => {
          const authorizations = load.authorizationsOf!(connection++ % connections);
          client.setRequests(
            authorizations.map((authorization) => ({
              method: load.method,
              path,
              headers: { ...load.headers, authorization },
              ...(load.body === undefined ? {} : { body: load.body }),
            })),
          );
        };
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base.origin + path,
        connections,
        duration: seconds,
        method: load.method,
        headers: { ...load.headers },
        ...(load.body === undefined ? {} : { body: load.body }),
        ...(setupClient === undefined ? {} : { setupClient }),
      },
      (error, result) => {
        if (error !== null) return reject(error);
        const sorted = latencies.subarray(0, count).sort();
        const responses = result['2xx'] + result.non2xx;
        resolve({
          requestsPerSecond: responses / result.duration,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
          non2xxShare: responses === 0 ? 0 : result.non2xx / responses,
          responses,
          errors: result.errors + result.timeouts,
          statusCounts: Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count: n }]) => [status, n])),
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
      if (count === latencies.length) {
        const grown = new Float64Array(count * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTimeMs;
    });
  });
};

const percentile = (sorted: Float64Array, q: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
