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

  async untilWaiting(count: number): Promise<void> {
    while (this.waiting.length < count) await sleep(5);
  }
}
