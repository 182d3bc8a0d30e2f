import type { Clock } from '../../ports/clock.js';

/** The only reader of the wall clock: everything else gets the time from a Clock. */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
}
