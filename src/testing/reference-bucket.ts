import type { QuotaRule } from '../domain/quota/quota-rule.js';

/**
 * A burst rule written the textbook way, for comparison with the engine's level arithmetic:
 * GCRA's theoretical arrival time (TAT), an exact rational kept as a BigInt numerator over the
 * rule's limit. A unit moves the TAT on by the emission interval windowMs / limit; a request of
 * cost c fits at time t when max(TAT, t) + c * interval <= t + windowMs. Room and times are
 * found by counting and by searching the whole milliseconds, never by a closed formula.
 * A plan change (another limit, the same window) keeps the units still outstanding at the time
 * the bucket was last advanced to, and drains them at the new limit's rate from there.
 */
export class ReferenceBucket {
  /** TAT = tat / limit ms; null: the bucket is empty from `advancedAt` on. */
  private tat: bigint | null = null;
  private limit = 0n;
  private advancedAt = 0n;

  /** Follows a change of `rule`'s limit, as of the time the bucket was last advanced to. */
  private under(rule: QuotaRule): { limit: bigint; window: bigint } {
    const limit = BigInt(rule.limit);
    if (limit !== this.limit) {
      if (this.tat !== null) {
        // The units outstanding at advancedAt, (TAT - advancedAt) / interval, stay outstanding.
        const outstanding = this.tat - this.advancedAt * this.limit;
        this.tat = outstanding <= 0n ? null : this.advancedAt * limit + outstanding;
      }
      this.limit = limit;
    }
    return { limit, window: BigInt(rule.windowMs) };
  }

  /** Whether a request of `cost` units fits at time `t`. */
  private fitsAt(rule: QuotaRule, cost: number, t: bigint): boolean {
    const { limit, window } = this.under(rule);
    const start = this.tat === null || this.tat < t * limit ? t * limit : this.tat;
    return start + BigInt(cost) * window <= (t + window) * limit;
  }

  /** The first whole millisecond from `from` at which `cost` units fit, by bisection (fitting only gets easier with time). */
  private earliest(rule: QuotaRule, cost: number, from: number): number {
    let low = BigInt(from);
    if (this.fitsAt(rule, cost, low)) return from;
    // Once the TAT has passed, the bucket is empty and any cost up to the limit fits.
    let high = this.tat! / this.limit + 1n;
    while (high - low > 1n) {
      const middle = (low + high) / 2n;
      if (this.fitsAt(rule, cost, middle)) high = middle;
      else low = middle;
    }
    return Number(high);
  }

  fits(rule: QuotaRule, cost: number, now: number): boolean {
    return this.fitsAt(rule, cost, BigInt(now));
  }

  /** The most units that fit at once. */
  remaining(rule: QuotaRule, now: number): number {
    let units = 0;
    while (units < rule.limit && this.fitsAt(rule, units + 1, BigInt(now))) units++;
    return units;
  }

  /** `now` for a bucket empty at `at`; else when one more unit than at `at` fits. */
  resetAt(rule: QuotaRule, at: number, now: number): number {
    this.under(rule);
    if (this.tat === null || this.tat <= BigInt(at) * this.limit) return now;
    return this.earliest(rule, this.remaining(rule, at) + 1, at);
  }

  retryAt(rule: QuotaRule, cost: number, now: number): number {
    return this.earliest(rule, cost, now);
  }

  /** When one unit fits, from the time the bucket was last advanced to (what a ban starting then answers); undefined when it fits then. */
  banRetryAt(rule: QuotaRule): number | undefined {
    const from = Number(this.advancedAt);
    return this.fits(rule, 1, from) ? undefined : this.earliest(rule, 1, from);
  }

  /** Counts `cost` units at `now`, whether or not they fit (a shadow rule counts what it has no room for). */
  count(rule: QuotaRule, cost: number, now: number): void {
    const { limit, window } = this.under(rule);
    const t = BigInt(now) * limit;
    this.tat = (this.tat === null || this.tat < t ? t : this.tat) + BigInt(cost) * window;
  }

  /**
   * Gives back what of `cost` units counted at `countedAt` has not drained by `at`, were they
   * drained from the moment they were counted: cost * windowMs unit-ms less (at - countedAt) *
   * limit, never below none. Never more than the request still holds in the bucket, so it never
   * admits more than the bucket would have without the request.
   */
  refund(rule: QuotaRule, cost: number, countedAt: number, at: number): void {
    const { limit, window } = this.under(rule);
    if (this.tat === null) return;
    const whole = BigInt(cost) * window;
    const drained = BigInt(at - countedAt) * limit;
    if (drained >= whole) return;
    const tat = this.tat - (whole - drained);
    this.tat = tat <= this.advancedAt * limit ? null : tat;
  }

  /** The engine advances every rule at each decision it makes outside a ban, admitted or not; a change of limit before that is as of the last. */
  advance(rule: QuotaRule, now: number): void {
    this.under(rule);
    this.advancedAt = BigInt(now);
  }
}
