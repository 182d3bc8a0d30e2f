import { setTimeout as sleep } from 'node:timers/promises';
import type { PetRepository } from '../../src/ports/pet-repository.js';

/** A pet repository whose reads of a pet wait until the test lets them go: requests held open, in flight. */
export class HeldReads {
  readonly waiting: (() => void)[] = [];

  /** Only `get` is there: the tests holding reads send nothing else. */
  readonly repository = {
    get: () => new Promise<undefined>((resolve) => this.waiting.push(() => resolve(undefined))),
  } as Partial<PetRepository> as PetRepository;

  releaseAll(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** Waits until `count` reads are held; past `withinMs` it fails saying how many came, rather than waiting on to the test's timeout. */
  async untilWaiting(count: number, withinMs = 15_000): Promise<void> {
    const deadline = Date.now() + withinMs;
    while (this.waiting.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.waiting.length} reads held after ${withinMs} ms, not ${count}`);
      await sleep(5);
    }
  }
}
