/**
 * The testing kit's two limiter properties (src/testing/quota-properties.ts) against every limiter
 * through the same harness, whatever the schedule (bursts at granule and window edges, idle gaps):
 * `limiterAgreesWithModel`, each request answered as the reference model of the quota rules
 * answers it, and `limiterKeepsToLimits`, never more than the limit admitted within one rolling
 * window (what any exact limiter must hold, whatever its algorithm). A failure is the kit's own
 * shrunk counterexample, quoted as it prints it.
 *
 * On a driven clock every limiter reads a virtual time only the schedule moves (Date.now() for
 * the peers' memory stores, the clock this service's stores are given), and a run takes
 * milliseconds. On Redis the peers' windows are key expiries, which only real time moves: their
 * schedules play on the real clock, each request sent once its time has come, for a bounded time.
 */
import { LimitExceeded, limiterAgreesWithModel, limiterKeepsToLimits, ModelDisagreement, type LimiterFunction } from '../../src/testing.js';
import type { QuotaPolicy } from '../../src/index.js';
import type { Instance } from './limiters.js';
import { accuracyOf, type Decision } from './measure.js';

/** Which of the kit's limiter properties. */
export type LimiterProperty = 'agrees with the model' | 'keeps to the limit';

const PROPERTIES: Readonly<Record<LimiterProperty, typeof limiterAgreesWithModel>> = {
  'agrees with the model': limiterAgreesWithModel,
  'keeps to the limit': limiterKeepsToLimits,
};

export interface PropertyResult {
  readonly property: LimiterProperty;
  readonly clock: 'driven' | 'real';
  readonly limit: number;
  readonly windowMs: number;
  /** Cases run, when the property held (fewer than asked when the time limit stopped it). */
  readonly runs?: number;
  readonly passed: boolean;
  /** The kit's message when it failed: the shrunk schedule request by request up to the first answered unlike the model, and how to replay it. */
  readonly counterexample?: string;
  readonly disagreement?: 'over-admission' | 'under-admission';
  /** In that shrunk schedule, the most admissions within one rolling window by the schedule's times: above the limit, over it, not only over the model. */
  readonly admittedInWindow?: number;
  /**
   * The same, by the moments the calls were made and answered (accuracyOf, as the shapes are
   * judged): on the real clock a request leaves after its time, and a burst's calls one after
   * another, so what was over by the schedule may not have been as it ran.
   */
  readonly admittedInWindowAsRun?: number;
  /** When it held: whether the time limit stopped it (a failure's message says so itself). */
  readonly interrupted?: boolean;
  readonly seed: number;
}

export interface PropertyOptions {
  readonly property: LimiterProperty;
  readonly clock: 'driven' | 'real';
  readonly limit: number;
  readonly windowMs: number;
  readonly numRuns: number;
  /** Most steps of a schedule (each a burst at one time): kept few on the real clock, where a schedule takes its own length to play. */
  readonly maxSteps: number;
  /** Real clock only: start no case after this long (a failure is kept, shrunk as far as it got). */
  readonly timeLimitMs?: number;
  readonly seed: number;
}

/** The most of `times` (sorted) within one rolling window: any span shorter than `windowMs`. */
const mostInWindow = (times: readonly number[], windowMs: number): number => {
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One case's limiter function over `instance`. Driven: the virtual time is the schedule's, moved
 * on by whole windows past every earlier case (a fresh stretch of time, granules aligned as the
 * model's). Real: each request waits until its offset from the case's first has passed.
 */
const caseOf = (instance: Instance, clock: 'driven' | 'real', windowMs: number, virtual: { now: number }, calls: Call[]): LimiterFunction => {
  let shift: number | undefined;
  let first: { at: number; realAt: number } | undefined;
  return async (subject, _cost, at) => {
    if (clock === 'driven') {
      shift ??= Math.ceil((virtual.now + 10 * windowMs - at) / windowMs) * windowMs;
      virtual.now = at + shift;
      const admitted = await instance.check(subject);
      calls.push({ at, from: at, to: at, admitted });
      return admitted;
    }
    first ??= { at, realAt: performance.now() };
    await sleep(first.realAt + (at - first.at) - performance.now());
    const from = performance.now() - first.realAt + first.at;
    const admitted = await instance.check(subject);
    calls.push({ at, from, to: performance.now() - first.realAt + first.at, admitted });
    return admitted;
  };
};

/** A call as it ran: its time in the schedule, and when it left and was answered on the same scale. */
interface Call extends Decision {
  readonly at: number;
}

/** The kit's property on one instance; `driveDateNow` points Date.now() at the virtual time while it runs (the peers' memory stores read it). */
export const checkProperty = async (instance: Instance, options: PropertyOptions, virtual: { now: number }, driveDateNow: boolean): Promise<PropertyResult> => {
  const { property, clock, limit, windowMs, numRuns, maxSteps, seed } = options;
  const policy: QuotaPolicy = { rules: [{ name: 'window', limit, windowMs }] };
  const base = { property, clock, limit, windowMs, seed };
  const cases: Call[][] = [];
  const realNow = Date.now.bind(Date);
  if (driveDateNow) Date.now = () => virtual.now;
  try {
    const report = await PROPERTIES[property](policy, () => caseOf(instance, clock, windowMs, virtual, cases[cases.push([]) - 1]!), {
      numRuns,
      maxSteps,
      seed,
      ...(options.timeLimitMs === undefined ? {} : { timeLimitMs: options.timeLimitMs }),
    });
    return { ...base, passed: true, runs: report.runs, interrupted: report.interrupted };
  } catch (error) {
    const cause = (error as Error).cause;
    if (!(cause instanceof ModelDisagreement || cause instanceof LimitExceeded)) throw error;
    const admittedAt = cause.lines.filter((line) => line.admitted).map((line) => line.request.at);
    // The shrunk case is the last that ran as its trace did; judged with the shapes' 1 ms of slack on the real clock.
    const toleranceMs = clock === 'real' ? 1 : 0;
    const ranAsTraced = (calls: readonly Call[]): boolean =>
      calls.length === cause.lines.length && calls.every((call, i) => call.at === cause.lines[i]!.request.at && call.admitted === cause.lines[i]!.admitted);
    const asRun = cases.findLast(ranAsTraced);
    return {
      ...base,
      passed: false,
      counterexample: (error as Error).message,
      disagreement: cause.lines.at(-1)?.admitted === true ? 'over-admission' : 'under-admission',
      admittedInWindow: mostInWindow(admittedAt, windowMs),
      ...(asRun === undefined ? {} : { admittedInWindowAsRun: limit + accuracyOf(asRun, limit, windowMs, toleranceMs).peakExcess }),
    };
  } finally {
    Date.now = realNow;
  }
};
