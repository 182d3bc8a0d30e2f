import { execFileSync } from 'node:child_process';

/**
 * Set on the main process once this run has built: every project (`extends: true`) inherits the
 * global setup, and Vitest runs it once per project that has files to run, each project importing
 * this module afresh, so only the process object is shared. Four projects built dist/ four times,
 * one after the other, before the first test: 53 s of a full run where one build takes 13.
 */
const BUILT = Symbol.for('petstore.test.dist-built');

/**
 * Process tests start the built CLI, as an operator would: build it once per test run. The
 * teardown (at the end of the run) clears the mark, so a Vitest restarted in this process builds again.
 */
export default function build(): () => void {
  const main = process as NodeJS.Process & { [BUILT]?: true };
  if (main[BUILT] !== true) {
    // npm's build script, not tsc alone: it also copies the .lua files the built Redis adapters read.
    execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
    main[BUILT] = true;
  }
  return () => {
    delete main[BUILT];
  };
}
