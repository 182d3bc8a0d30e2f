import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * `npm start` runs the built server (dist/, built by the global setup) without compiling, and
 * SIGTERM sent to npm reaches the server: npm forwards SIGINT and SIGTERM to the script's
 * process, and `exec` in the script makes that process node itself, with no shell between.
 */

const REPO = resolve(import.meta.dirname, '../..');
const KEY = 'npm-start-key-123';

/** The PIDs of a process's children, grandchildren and so on (Linux /proc). */
function descendantPids(pid: number): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendantPids(child)]);
}

const commandLine = (pid: number): string => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the URL of the first `listening on URL` in the output; rejects after 10 s or when the process exits first. */
function waitForListening(child: ChildProcess, output: () => string, exited: Promise<unknown>): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    const check = (): void => {
      const url = /listening on (\S+)/.exec(output())?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolveUrl(url);
    };
    const timer = setTimeout(() => reject(new Error(`npm start printed no "listening on" within 10 s:\n${output()}`)), 10_000);
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`npm start exited before listening:\n${output()}`));
    });
  });
}

const pidsToKill = new Set<number>();
afterAll(() => {
  for (const pid of pidsToKill) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
});

describe('npm start', () => {
  it('serves the built server without compiling, and on SIGTERM to npm drains, stops listening and exits 0', async () => {
    const npm = spawn('npm', ['start'], {
      cwd: REPO,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PETSTORE_ENV: 'test', PETSTORE_API_KEYS: `${KEY}:pro`, PETSTORE_STORE: 'memory' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (npm.pid !== undefined) pidsToKill.add(npm.pid);
    const exited = once(npm, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    try {
      const url = await waitForListening(npm, () => output, exited);
      const descendants = descendantPids(npm.pid ?? 0);
      for (const pid of descendants) pidsToKill.add(pid);

      // No build step: the script is the one command (its only descendant is node below). Not a
      // time bound: a loaded machine took 8.2 s to start without compiling anything.
      expect(output).not.toMatch(/> tsc|npm run build/);

      // With `exec`, npm's only child is node running the server: the signal npm forwards lands on it.
      // Without it, the child is `sh -c`, which dies of the signal and leaves node running.
      expect(descendants.map(commandLine)).toEqual([expect.stringMatching(/^node (\S+ )*dist\/src\/app\/cli\/cli\.js$/)]);

      const listed = await fetch(`${url}/pets`, { headers: { authorization: `Bearer ${KEY}` }, signal: AbortSignal.timeout(5_000) });
      expect(listed.status).toBe(200);

      // A create whose body is still arriving when npm gets SIGTERM: the server finishes it.
      const { hostname, port } = new URL(url);
      const answered = new Promise<{ status: number; body: string }>((resolveAnswer, reject) => {
        const req = request(
          { hostname, port, method: 'POST', path: '/v1/pets', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, timeout: 10_000 },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
        req.write('{"name":"Late",');
        setTimeout(() => {
          npm.kill('SIGTERM');
          setTimeout(() => req.end('"categoryId":7}'), 300);
        }, 200);
      });
      const response = await answered;
      expect(response.status).toBe(201);
      expect(JSON.parse(response.body)).toMatchObject({ name: 'Late', categoryId: 7 });

      // npm 11 forwards the signal and exits with its script's status: the server exits 0 after draining, so npm exits 0.
      const timeout = setTimeout(() => npm.kill('SIGKILL'), 10_000);
      const [code, signal] = await exited;
      clearTimeout(timeout);
      expect({ code, signal }, output).toEqual({ code: 0, signal: null });
      expect(output).toContain('SIGTERM: finishing requests in flight, then exiting');
      expect(descendants.filter(isRunning), 'processes of npm start left running').toEqual([]);
      const refused = await fetch(`${url}/pets`, { signal: AbortSignal.timeout(5_000) }).then(
        () => 'answered',
        (error: unknown) => ((error as { cause?: { code?: string } }).cause?.code ?? String(error)),
      );
      expect(refused).toBe('ECONNREFUSED');
    } finally {
      // On a failure, whatever npm started is killed with it (afterAll), not left serving.
      for (const pid of descendantPids(npm.pid ?? 0)) pidsToKill.add(pid);
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    }
  });
});
