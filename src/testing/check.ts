/**
 * One named check of a contract: `run` resolves when the store under test behaves, and rejects
 * with an Error that says what was expected and what came when it does not. No test framework:
 * `for (const check of checks) it(check.name, check.run)` under vitest or jest,
 * `test(check.name, check.run)` under node:test.
 */
export interface ContractCheck {
  readonly name: string;
  run(): Promise<void>;
}

/** A store under test and how to let it go: the factory of every contract answers one of these. */
export interface Disposable {
  cleanup(): Promise<void>;
}

/** Options every contract takes. */
export interface ContractOptions {
  /** Runs of each fast-check property of the contract (its own default when not given). */
  readonly numRuns?: number;
}

/**
 * A check that makes its store with `setup`, runs `body` on it and lets it go, whatever `body`
 * did: each check has a store of its own, so a runner may run them in any order.
 */
export const checkOf = <Context extends Disposable>(name: string, setup: () => Promise<Context>, body: (context: Context) => Promise<void>): ContractCheck => ({
  name,
  run: async () => {
    const context = await setup();
    try {
      await body(context);
    } finally {
      await context.cleanup();
    }
  },
});
