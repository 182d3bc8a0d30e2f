/**
 * The unit tier (`npm run test:unit`) runs with no store, no child process and no build, so it
 * stays under a minute on any machine. Each fixture that needs one of those calls this first: a
 * file put in the wrong tier fails at once, naming the fixture, instead of waiting on a server.
 */
export function needsBeyondUnitTier(what: string): void {
  if (process.env['PETSTORE_TEST_TIER'] === 'unit') {
    throw new Error(`${what} is not available in the unit tier (no store, no child process, no build): list this file under the integration or system tier in vitest.config.ts`);
  }
}
