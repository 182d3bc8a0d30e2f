/**
 * One fast-check property against every limiter through the same harness: whatever the
 * schedule (groups of requests at once, gaps between them), never more than `limit`
 * admissions in any rolling `windowMs`. Kept small on purpose; the testing kit of issue 40
 * carries the full one.
 *
 * On the memory store every limiter reads Date.now() (this service's through the clock it is
 * given), so the clock is driven: Date.now() answers a virtual time that only the schedule
 * moves, and a run takes milliseconds. On Redis the peers' windows are Redis key expiries,
 * which only real time moves: their schedules play on the real clock, in a short window, for
 * a bounded time. This service's Redis store takes a driven clock in place of Redis's TIME.
 */
import fc from 'fast-check';
import { accuracyOf, type Decision } from './measure.js';
import type { Instance } from './limiters.js';
import { nextTurn } from './shapes.js';

export interface Group {
  /** Milliseconds after the run starts: groups are absolute, so that shrinking one moves no other. */
  readonly atMs: number;
  /** Requests sent at once. */
  readonly count: number;
}

export interface PropertyResult {
  readonly clock: 'driven' | 'real';
  readonly limit: number;
  readonly windowMs: number;
  readonly runs: number;
  readonly passed: boolean;
  /** The shrunk schedule, as fast-check prints it, when the property failed. */
  readonly counterexample?: string;
  /** What that schedule got: the most admissions within one rolling window. */
  readonly admittedInWindow?: number;
  readonly shrinks?: number;
  /** The time limit stopped the run (or its shrinking) early. */
  readonly interrupted: boolean;
  readonly seed: number;
}

export interface PropertyOptions {
  readonly clock: 'driven' | 'real';
  readonly limit: number;
  readonly windowMs: number;
  readonly numRuns: number;
  /** Real clock only: stop (and keep the shrink reached) after this long. */
  readonly timeLimitMs?: number;
  readonly seed: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Plays `groups` on `instance` for `subject`; the decisions' times on the driven or the real clock. */
const playGroups = async (groups: readonly Group[], instance: Instance, subject: string, clock: 'driven' | 'real', virtual: { now: number }): Promise<Decision[]> => {
  const decisions: Decision[] = [];
  const start = performance.now();
  const origin = virtual.now;
  for (const { atMs, count } of [...groups].sort((a, b) => a.atMs - b.atMs)) {
    if (clock === 'driven') virtual.now = origin + atMs;
    else await sleep(start + atMs - performance.now());
    const answers = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        if (i > 0) await nextTurn();
        const sentAt = performance.now();
        const admitted = await instance.check(subject);
        return clock === 'driven' ? { from: virtual.now, to: virtual.now, admitted } : { from: sentAt - start, to: performance.now() - start, admitted };
      }),
    );
    decisions.push(...answers);
  }
  return decisions;
};

/** The property on one instance; `drive` installs the driven clock around a run (Date.now(), or the limiter's own). */
export const checkProperty = async (instance: Instance, options: PropertyOptions, virtual: { now: number }, driveDateNow: boolean): Promise<PropertyResult> => {
  const { clock, limit, windowMs, numRuns, seed } = options;
  const tolerance = clock === 'driven' ? 0 : 1;
  const schedule = fc.array(fc.record({ atMs: fc.integer({ min: 0, max: 2 * windowMs }), count: fc.integer({ min: 1, max: limit }) }), { minLength: 1, maxLength: clock === 'driven' ? 8 : 4 });
  let subjects = 0;
  let failingPeak = 0;
  const property = fc.asyncProperty(schedule, async (groups) => {
    const subject = `property:${++subjects}`;
    // A fresh subject, and a virtual time well past anything the previous run counted.
    virtual.now += 10 * windowMs;
    const realNow = Date.now.bind(Date);
    if (driveDateNow) Date.now = () => virtual.now;
    let decisions: Decision[];
    try {
      decisions = await playGroups(groups, instance, subject, clock, virtual);
    } finally {
      Date.now = realNow;
    }
    const accuracy = accuracyOf(decisions, limit, windowMs, tolerance);
    // The last run that fails is the shrunk counterexample: its count is the one quoted (a replay on the real clock need not fail again).
    if (accuracy.peakExcess > 0) failingPeak = accuracy.peakExcess + limit;
    return accuracy.peakExcess === 0;
  });
  const outcome = await fc.check(property, {
    numRuns,
    seed,
    ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false }),
  });
  const base = { clock, limit, windowMs, runs: outcome.numRuns, interrupted: outcome.interrupted, seed };
  if (!outcome.failed || outcome.counterexample === null) return { ...base, passed: true };
  const inOrder = [...outcome.counterexample[0]].sort((a, b) => a.atMs - b.atMs);
  return { ...base, passed: false, counterexample: fc.stringify(inOrder), admittedInWindow: failingPeak, shrinks: outcome.numShrinks };
};
