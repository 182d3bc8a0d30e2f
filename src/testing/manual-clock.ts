import type { Clock } from '../ports/clock.js';

/** A clock that moves only when a test says so: the contracts drive a store's time with it. */
export class ManualClock implements Clock {
  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(at: number): void {
    this.current = at;
  }
}
