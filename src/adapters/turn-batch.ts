import { atTurnEnd } from './turn-end.js';

/**
 * Gathers the calls made in one turn of the event loop and runs them as one statement: under
 * load, the creates of many requests then share one round trip, one commit and one WAL flush
 * (the HTTP bench measured it for PostgreSQL and Redis); alone, a call waits one turn.
 */
export class TurnBatch<Input, Output> {
  #waiting: { readonly input: Input; resolve(output: Output): void; reject(error: unknown): void }[] = [];

  constructor(
    /** Answers one output per input, in the inputs' order; a failure fails every call of the batch. */
    private readonly run: (inputs: readonly Input[]) => Promise<readonly Output[]>,
    private readonly maxSize: number,
  ) {}

  add(input: Input): Promise<Output> {
    return new Promise((resolve, reject) => {
      const size = this.#waiting.push({ input, resolve, reject });
      if (size === 1) atTurnEnd(() => this.#flush());
      else if (size >= this.maxSize) this.#flush();
    });
  }

  #flush(): void {
    const batch = this.#waiting;
    if (batch.length === 0) return;
    this.#waiting = [];
    this.run(batch.map(({ input }) => input)).then(
      (outputs) => {
        batch.forEach(({ resolve, reject }, index) => {
          const output = outputs[index];
          if (output === undefined) reject(new Error(`a batch of ${batch.length} answered ${outputs.length} results`));
          else resolve(output);
        });
      },
      (error: unknown) => batch.forEach(({ reject }) => reject(error)),
    );
  }
}
