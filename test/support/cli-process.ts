import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { needsBeyondUnitTier } from './test-tier.js';

export interface CliProcess {
  readonly child: ChildProcess;
  /** Everything printed so far on stdout and stderr. */
  output(): string;
  /** What was printed so far on stdout alone. */
  stdout(): string;
  /** Resolves with the first match of `pattern` in the output, or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code (or the signal's name). */
  exited(): Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * No drain unless a test sets one: the tests stop their servers with SIGTERM, and one with
 * PETSTORE_ENV staging or production would first answer for 10 s more (PETSTORE_DRAIN_SECONDS'
 * default there), which only the tests that set it look at.
 */
const TEST_DEFAULTS: Readonly<Record<string, string>> = { PETSTORE_DRAIN_SECONDS: '0' };

/** Starts the built CLI (dist/, built by the global setup) with the given environment. */
export function startCli(environ: Record<string, string>, args: readonly string[] = []): CliProcess {
  needsBeyondUnitTier('the built CLI');
  const child = spawn(process.execPath, ['dist/src/app/cli/cli.js', ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...TEST_DEFAULTS, ...environ },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exit = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  return {
    child,
    output: () => output,
    stdout: () => stdout,
    waitFor: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(output);
          if (match === null) return;
          cleanup();
          resolve(match);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern} in:\n${output}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exit.then(() => {
          if (listeners.has(check)) {
            cleanup();
            reject(new Error(`process exited before printing ${pattern}:\n${output}`));
          }
        });
        check();
      }),
    exited: () => exit,
    kill: (signal = 'SIGTERM') => {
      child.kill(signal);
    },
  };
}

/** Stops every one of `processes` (SIGTERM) and waits until all have exited. */
export async function stopAll(processes: readonly CliProcess[]): Promise<void> {
  for (const child of processes) child.kill();
  await Promise.all(processes.map((child) => child.exited()));
}

/** Runs the CLI to its end: its exit code (or the signal's name) and everything it printed. */
export async function runCli(environ: Record<string, string>, args: readonly string[]): Promise<{ code: number | string; output: string }> {
  const cli = startCli(environ, args);
  const code = await cli.exited();
  return { code, output: cli.output() };
}
