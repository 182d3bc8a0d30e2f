import autocannon from 'autocannon';

/** One HTTP request of a load, its path under the server's base URL (e.g. `/pets?limit=20`). */
export interface LoadRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Every connection sends the same request in a loop. */
export interface RepeatedLoad extends LoadRequest {
  /** Per connection: the Authorization values it cycles through (spread over many keys). */
  readonly authorizationsOf?: (connection: number) => readonly string[];
  readonly stepsOf?: undefined;
}

/**
 * One step of a connection's cycle. A step whose path is a function takes what an earlier step
 * of the same cycle captured from its answer (an order's id, say); when nothing was captured
 * (that answer was a refusal) the step is not sent and the connection starts its cycle again.
 */
export interface LoadStep extends Omit<LoadRequest, 'path'> {
  readonly path: string | ((captured: string) => string);
  /** What later steps need from this step's answer; undefined when the answer gives nothing to go on. */
  readonly capture?: (status: number, body: string) => string | undefined;
}

/** Every connection sends its own steps in turn, in a loop: e.g. place an order, then cancel that order. */
export interface SequenceLoad {
  /** Per connection; the first step's path is fixed (autocannon has to be able to build it at any time). */
  readonly stepsOf: (connection: number) => readonly LoadStep[];
}

export type Load = RepeatedLoad | SequenceLoad;

export interface Measurement {
  /** Responses per second, whatever step of a sequence they answer. */
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Of all responses. */
  readonly non2xxShare: number;
  readonly responses: number;
  /** Socket errors and timeouts: a run with any is not a fair figure. */
  readonly errors: number;
  /** By status code (autocannon), or in wrk's two classes, `<400` and `>=400` (bench/http/wrk.ts). */
  readonly statusCounts: Readonly<Record<string, number>>;
  /** What generated the load; absent from results stored before there was a choice (all autocannon). */
  readonly generator?: LoadGenerator;
  /**
   * The load generator's own CPU (user + system) per response: wrk's process; for autocannon,
   * the bench process over the run (two autocannon runs at once in it each count both).
   */
  readonly generatorCpuUsPerRequest?: number;
}

/** `wrk` (bench/http/wrk.ts) for a load of one fixed request, autocannon (here) for any load. */
export type LoadGenerator = 'wrk' | 'autocannon';

/** autocannon's per-connection context of a cycle: emptied each time the cycle starts again. */
interface CycleContext {
  captured?: string;
}

const sequenceRequests = (steps: readonly LoadStep[], prefix: string): autocannon.RequestSpec[] => {
  if (typeof steps[0]?.path !== 'string') throw new Error('a sequence needs at least one step, the first with a fixed path');
  return steps.map(({ method, path, headers, body, capture }) => ({
    method,
    headers: { ...headers },
    ...(body === undefined ? {} : { body }),
    ...(typeof path === 'string'
      ? { path: prefix + path }
      : {
          // Null tells autocannon to skip the rest of the cycle and send the first step again.
          setupRequest: (request: autocannon.RequestSpec, context: CycleContext) =>
            context.captured === undefined ? null : { ...request, path: prefix + path(context.captured) },
        }),
    ...(capture === undefined
      ? {}
      : {
          onResponse: (status: number, responseBody: string, context: CycleContext) => {
            const captured = capture(status, responseBody);
            if (captured === undefined) delete context.captured;
            else context.captured = captured;
          },
        }),
  }));
};

/**
 * One autocannon run of `seconds` with `connections` keep-alive connections. Latencies are
 * taken from every response (2xx or not) in fractions of a millisecond: autocannon's own
 * histogram rounds to whole milliseconds, too coarse at these speeds.
 */
export const runLoad = (baseUrl: string, load: Load, connections: number, seconds: number): Promise<Measurement> => {
  const base = new URL(baseUrl);
  let connection = 0;
  const nextConnection = (): number => connection++ % connections;
  let setupClient: ((client: autocannon.Client) => void) | undefined;
  let defaults: autocannon.RequestSpec & { readonly method: string; readonly path: string };
  if (load.stepsOf !== undefined) {
    const { stepsOf } = load;
    setupClient = (client) => client.setRequests(sequenceRequests(stepsOf(nextConnection()), base.pathname));
    // Replaced by every connection's own steps before it sends anything.
    defaults = { method: 'GET', path: base.pathname };
  } else {
    const path = base.pathname + load.path;
    defaults = { method: load.method, path, headers: { ...load.headers }, ...(load.body === undefined ? {} : { body: load.body }) };
    const { authorizationsOf } = load;
    if (authorizationsOf !== undefined) {
      setupClient = (client) => {
        client.setRequests(
          authorizationsOf(nextConnection()).map((authorization) => ({ ...defaults, headers: { ...load.headers, authorization } })),
        );
      };
    }
  }
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const cpuBefore = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base.origin + defaults.path,
        method: defaults.method,
        ...(defaults.headers === undefined ? {} : { headers: defaults.headers }),
        ...(defaults.body === undefined ? {} : { body: defaults.body }),
        connections,
        duration: seconds,
        ...(setupClient === undefined ? {} : { setupClient }),
      },
      (error, result) => {
        if (error !== null) return reject(error);
        const cpu = process.cpuUsage(cpuBefore);
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
          generator: 'autocannon',
          ...(responses === 0 ? {} : { generatorCpuUsPerRequest: (cpu.user + cpu.system) / responses }),
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
