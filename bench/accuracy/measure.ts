/**
 * What a run of decisions is judged by, against the rule every limiter here claims: at most
 * `limit` admissions in any rolling `windowMs`. Times are when each decision was taken, as
 * best the caller knows it (the midpoint of the call on a real clock, the driven time on a
 * driven one).
 */
export interface Decision {
  readonly at: number;
  readonly admitted: boolean;
}

export interface Accuracy {
  readonly sent: number;
  readonly admitted: number;
  /** The most admissions within any rolling window, beyond the limit (0 when never beyond). */
  readonly peakExcess: number;
  /** Admissions after which the rolling window ending there held more than the limit. */
  readonly excessAdmissions: number;
  /** Refusals while the rolling window ending there held fewer than the limit. */
  readonly underAdmissions: number;
}

/**
 * `toleranceMs`: how far a decision's time may be off on a real clock (timer and event loop
 * jitter, half a round trip to Redis). Over-admission is judged on windows that much shorter,
 * under-admission on windows that much longer, so that an exact limiter is never blamed for
 * the clock it is measured by; 0 on a driven clock.
 */
export const accuracyOf = (decisions: readonly Decision[], limit: number, windowMs: number, toleranceMs = 0): Accuracy => {
  const admittedAt = decisions
    .filter((decision) => decision.admitted)
    .map((decision) => decision.at)
    .sort((a, b) => a - b);
  let peak = 0;
  let excessAdmissions = 0;
  let first = 0;
  const span = windowMs - toleranceMs;
  for (let last = 0; last < admittedAt.length; last++) {
    while (admittedAt[last]! - admittedAt[first]! >= span) first++;
    const held = last - first + 1;
    peak = Math.max(peak, held);
    if (held > limit) excessAdmissions++;
  }
  let underAdmissions = 0;
  for (const { at, admitted } of decisions) {
    if (admitted) continue;
    const held = countIn(admittedAt, at - windowMs - toleranceMs, at + toleranceMs);
    if (held < limit) underAdmissions++;
  }
  return { sent: decisions.length, admitted: admittedAt.length, peakExcess: Math.max(0, peak - limit), excessAdmissions, underAdmissions };
};

/** How many of the sorted `times` fall in (from, to]. */
const countIn = (times: readonly number[], from: number, to: number): number => upperBound(times, to) - upperBound(times, from);

const upperBound = (times: readonly number[], value: number): number => {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (times[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
};
