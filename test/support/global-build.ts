import { execFileSync } from 'node:child_process';

/** Process tests start the built CLI, as an operator would: build it once per test run. */
export default function build(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
