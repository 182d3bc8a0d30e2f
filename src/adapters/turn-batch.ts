import { atTurnEnd } from './turn-end.js';

interface Waiting<Input, Output> {
  readonly input: Input;
  resolve(output: Output): void;
  reject(error: unknown): void;
}

/**
 * Gathers the calls made in one turn of the event loop and runs them as one statement: under
 * load, the creates of many requests then share one round trip, one commit and one WAL flush
 * (the HTTP bench measured it for PostgreSQL and Redis); alone, a call waits one turn.
 */
export class TurnBatch<Input, Output> {
  readonly #waiting = new Map<string, Waiting<Input, Output>[]>();
  #scheduled = false;

  constructor(
    /** Answers one output per input, in the inputs' order; a failure fails every call of the batch. */
    private readonly run: (inputs: readonly Input[]) => Promise<readonly Output[]>,
    private readonly maxSize: number,
    /** Inputs of different groups go in different batches (a Redis Cluster's script takes the keys of one slot); one group by default. */
    private readonly groupOf: (input: Input) => string = () => '',
    /** Called once a batch that filled up has been run, before the turn ends: to send it at once (sendCorkedNow). */
    private readonly filled: () => void = () => {},
  ) {}

  add(input: Input): Promise<Output> {
    return new Promise((resolve, reject) => {
      const group = this.groupOf(input);
      let waiting = this.#waiting.get(group);
      if (waiting === undefined) {
        waiting = [];
        this.#waiting.set(group, waiting);
      }
      if (waiting.push({ input, resolve, reject }) >= this.maxSize) {
        this.#waiting.delete(group);
        this.#flush(waiting);
        this.filled();
      } else if (!this.#scheduled) {
        this.#scheduled = true;
        atTurnEnd(() => {
          this.#scheduled = false;
          for (const batch of this.#waiting.values()) this.#flush(batch);
          this.#waiting.clear();
        });
      }
    });
  }

  #flush(batch: readonly Waiting<Input, Output>[]): void {
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
