import type { Clock } from '../../src/ports/clock.js';

/** A clock that moves only when a test says so. */
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
