/**
 * What a run of decisions is judged by, against the rule every limiter here claims: at most
 * `limit` admissions in any rolling `windowMs`. Each decision was taken at some moment between
 * its call and its answer (Redis's clock decides inside a round trip); on a driven clock the
 * two are one. A limiter is blamed only for what is sure whatever those moments were.
 */
export interface Decision {
  /** When the call left, ms. */
  readonly from: number;
  /** When the answer came, ms. */
  readonly to: number;
  readonly admitted: boolean;
}

export interface Accuracy {
  readonly sent: number;
  readonly admitted: number;
  /** The most admissions surely within one rolling window, beyond the limit (0 when never beyond). */
  readonly peakExcess: number;
  /** Admissions after which a rolling window ending there surely held more than the limit. */
  readonly excessAdmissions: number;
  /** Refusals while every rolling window they could have been decided in held fewer than the limit. */
  readonly underAdmissions: number;
}

/**
 * `toleranceMs`: slack for the clocks themselves (a limiter's whole milliseconds against
 * performance.now()); 0 on a driven clock. Over-admission counts the admissions whose calls
 * all lie within a span shorter than the window by that much; under-admission, a refusal
 * for which even every admission whose call overlaps the window before it does not reach the limit.
 */
export const accuracyOf = (decisions: readonly Decision[], limit: number, windowMs: number, toleranceMs = 0): Accuracy => {
  const admitted = decisions.filter((decision) => decision.admitted).sort((a, b) => a.from - b.from);
  const span = windowMs - toleranceMs;
  // Calls sorted by when they left: those from `first` on that were answered within `span` of its call lie surely in one window.
  const within = (first: number, upTo: number): number => {
    let held = 0;
    for (let i = first; i <= upTo; i++) if (admitted[i]!.to - admitted[first]!.from < span) held++;
    return held;
  };
  let peak = 0;
  let excessAdmissions = 0;
  for (let first = 0; first < admitted.length; first++) peak = Math.max(peak, within(first, admitted.length - 1));
  for (let last = 0; last < admitted.length; last++) {
    for (let first = 0; first <= last; first++) {
      if (admitted[last]!.to - admitted[first]!.from < span && within(first, last) > limit) {
        excessAdmissions++;
        break;
      }
    }
  }
  let underAdmissions = 0;
  for (const { from, to, admitted: wasAdmitted } of decisions) {
    if (wasAdmitted) continue;
    // Every admission that could lie in a window ending anywhere in this call.
    const held = admitted.filter((a) => a.to > from - windowMs - toleranceMs && a.from <= to + toleranceMs).length;
    if (held < limit) underAdmissions++;
  }
  return { sent: decisions.length, admitted: admitted.length, peakExcess: Math.max(0, peak - limit), excessAdmissions, underAdmissions };
};
