/**
 * Starts one server of the middleware bench as a child process on 127.0.0.1 and a free port
 * (the same way as bench/http/servers.ts: no V8 memory reducer, stdout discarded, the URL read
 * from stderr), and reads its CPU time from /proc.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cpuSecondsOf, stopChild } from '../http/child-process.js';

export interface RunningServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly pid: number;
  /** CPU seconds (user + system) the process has used so far; undefined where /proc is missing. */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

/** As in the HTTP bench: servers that idle between their measurements would otherwise shrink their heaps and pay for it after. */
const NODE_FLAGS = ['--no-memory-reducer'];

/** `script`: a compiled file of dist/bench/middleware/, e.g. `express-own.js`. */
export const startServer = (script: string, env: Readonly<Record<string, string>>): Promise<RunningServer> => {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn(process.execPath, [...NODE_FLAGS, path], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${script}: ${why}\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('exit', (code) => fail(`exited with ${code}`));
    const lines = createInterface({ input: child.stderr });
    lines.on('line', (line) => {
      stderr += `${line}\n`;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      lines.close();
      // Later warnings are still drained, never read.
      child.stderr.resume();
      const pid = child.pid;
      if (pid === undefined) return fail('has no pid');
      resolve({ url, pid, cpuSeconds: () => cpuSecondsOf(pid), stop: () => stopChild(child, STOP_TIMEOUT_MS) });
    });
  });
};
