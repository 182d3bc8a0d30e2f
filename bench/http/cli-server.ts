import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { UNLIMITED } from './keys.js';

export interface CliServer {
  readonly child: ChildProcess;
  /** Ends in `/v1`. */
  readonly baseUrl: string;
  /** Set when `environ` asks for the admin listener (PETSTORE_ADMIN_PORT). */
  readonly adminUrl: string | undefined;
}

const START_TIMEOUT_MS = 20_000;

/**
 * The built standalone server (`petstore`, the CLI) on 127.0.0.1 and a free port, in the test
 * environment with the bench's unlimited key and warnings only, plus `environ`; resolves once it
 * printed where it listens (and its admin listener, when asked for one).
 */
export const startCliServer = (label: string, environ: Readonly<Record<string, string>>): Promise<CliServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/src/app/cli/cli.js'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        PETSTORE_ENV: 'test',
        PETSTORE_API_KEYS: `${UNLIMITED.key}:${UNLIMITED.plan}`,
        PETSTORE_LOG_LEVEL: 'warn',
        ...environ,
      },
      // The banner naming the listeners is on stderr, passed on; the JSON log on stdout is read and dropped, so a full pipe never stalls the server.
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.resume();
    child.stderr!.pipe(process.stderr);
    const wantsAdmin = environ['PETSTORE_ADMIN_PORT'] !== undefined;
    const timer = setTimeout(() => reject(new Error(`${label}: not listening within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    let baseUrl: string | undefined;
    let adminUrl: string | undefined;
    createInterface({ input: child.stderr! }).on('line', (line) => {
      adminUrl ??= /Admin listening on (\S+)/.exec(line)?.[1];
      baseUrl ??= /^Pet store .* listening on (\S+)/.exec(line)?.[1];
      if (baseUrl === undefined || (wantsAdmin && adminUrl === undefined)) return;
      clearTimeout(timer);
      resolve({ child, baseUrl, adminUrl });
    });
    child.once('exit', (code) => reject(new Error(`${label}: exited with ${code} before listening`)));
  });
