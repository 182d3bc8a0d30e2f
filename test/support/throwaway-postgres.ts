import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './test-redis.js';
import { needsBeyondUnitTier } from './test-tier.js';

/**
 * A private PostgreSQL server in a temporary folder of its own (never the shared server's
 * data), e.g. to crash and restart under a running adapter.
 */
export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth). */
  readonly url: string;
  readonly port: number;
  /** The temporary folder: the data directory (`data`), the server's log (`server.log`) and its Unix socket. */
  readonly dir: string;
  /** `pg_ctl stop -m immediate`: the server ends at once, as in a crash; the next start recovers from its WAL. */
  stopImmediate(): Promise<void>;
  /** Starts the server again, on the same data and port. */
  start(): Promise<void>;
  /** Stops the server if it runs and removes its folder. Idempotent. */
  destroy(): Promise<void>;
}

const PG_CTL_TIMEOUT_S = 30;
const COMMAND_TIMEOUT_MS = 60_000;
/** Attempts of the first start: the free port picked may be taken before the server binds it. */
const FIRST_START_ATTEMPTS = 3;

/** Servers started by this process and not destroyed: stopped when it exits, so none outlives it. */
const running = new Set<string>();
let exitHookInstalled = false;

/**
 * initdb (user postgres, trust auth, UTF8) into a fresh temporary folder, then starts the
 * server on a free port of 127.0.0.1 and resolves once it accepts connections. Run as root,
 * initdb and pg_ctl run as the `postgres` user, which owns the folder.
 */
export const startThrowawayPostgres = async (): Promise<ThrowawayPostgres> => {
  needsBeyondUnitTier('a PostgreSQL server process');
  const bin = postgresBinDir();
  const owner = await postgresOwner();
  const dir = await mkdtemp(join(tmpdir(), 'petstore-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  let port = 0;
  let destroyed = false;

  const pgCtl = (args: readonly string[]): Promise<string> => runAs(owner, join(bin, 'pg_ctl'), ['-D', dataDir, ...args], dir);
  const start = async (): Promise<void> => {
    if (destroyed) throw new Error(`throwaway PostgreSQL in ${dir}: destroyed, cannot start`);
    const options = [
      `-p ${port}`,
      `-k '${dir}'`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=on',
      // A small server starts fast and leaves room for many in parallel.
      '-c shared_buffers=16MB',
      '-c max_connections=50',
    ].join(' ');
    running.add(dataDir);
    try {
      await pgCtl(['start', '-w', '-t', String(PG_CTL_TIMEOUT_S), '-l', logFile, '-o', options]);
    } catch (error) {
      running.delete(dataDir);
      throw new Error(`throwaway PostgreSQL on port ${port} did not start:\n${await tail(logFile)}`, { cause: error });
    }
  };
  const stopImmediate = async (): Promise<void> => {
    await pgCtl(['stop', '-w', '-t', String(PG_CTL_TIMEOUT_S), '-m', 'immediate']);
    running.delete(dataDir);
  };
  const destroy = async (): Promise<void> => {
    if (destroyed) return;
    destroyed = true;
    try {
      if (await isRunning(pgCtl)) await stopImmediate();
    } finally {
      running.delete(dataDir);
      await rm(dir, { recursive: true, force: true });
    }
  };

  try {
    if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
    installExitHook(bin, owner);
    await runAs(
      owner,
      join(bin, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync', '--no-instructions'],
      dir,
    );
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await start();
        break;
      } catch (error) {
        const log = await tail(logFile);
        if (attempt >= FIRST_START_ATTEMPTS || !/could not (bind|create listen socket)/i.test(log)) throw error;
      }
    }
  } catch (error) {
    await destroy();
    throw error;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, dir, stopImmediate, start, destroy };
};

interface Owner {
  readonly uid: number;
  readonly gid: number;
}

/** The `postgres` user when we run as root (PostgreSQL refuses to run as root), else none: we run as ourselves. */
const postgresOwner = async (): Promise<Owner | undefined> => {
  if (process.getuid?.() !== 0) return undefined;
  const id = async (flag: string): Promise<number> => Number(await run('id', [flag, 'postgres'], undefined));
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch (error) {
    throw new Error('Running as root, a throwaway PostgreSQL needs a `postgres` user to run as: there is none', { cause: error });
  }
};

/**
 * The folder of initdb and pg_ctl: PG_BINDIR if set, else the newest /usr/lib/postgresql/<version>/bin,
 * else `pg_config --bindir`.
 */
const postgresBinDir = (): string => {
  const fromEnv = process.env['PG_BINDIR'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
        .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    : [];
  if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch (error) {
    throw new Error('No PostgreSQL server binaries (initdb, pg_ctl) found: install postgresql or set PG_BINDIR', { cause: error });
  }
};

/** `pg_ctl status`: 0 when a server runs on the data directory, 3 when none does. */
const isRunning = async (pgCtl: (args: readonly string[]) => Promise<string>): Promise<boolean> => {
  try {
    await pgCtl(['status']);
    return true;
  } catch {
    return false;
  }
};

/** Runs `file` as `owner` (through runuser) or, without one, as ourselves, in `cwd`. */
const runAs = (owner: Owner | undefined, file: string, args: readonly string[], cwd: string): Promise<string> =>
  owner === undefined ? run(file, args, cwd) : run('runuser', ['-u', 'postgres', '--', file, ...args], cwd);

const run = (file: string, args: readonly string[], cwd: string | undefined): Promise<string> =>
  new Promise((resolve, reject) => {
    // The cwd must be one the postgres user may enter: initdb and pg_ctl fail in one it cannot.
    execFile(file, args, { cwd, timeout: COMMAND_TIMEOUT_MS }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout.trim());
      else reject(new Error(`${[file, ...args].join(' ')} failed (${error.code ?? error.signal}):\n${stderr.trim() || stdout.trim()}`, { cause: error }));
    });
  });

const tail = async (logFile: string): Promise<string> => {
  try {
    return (await readFile(logFile, 'utf8')).split('\n').slice(-20).join('\n');
  } catch {
    return '(no server log)';
  }
};

/** Should the test process end without destroy, stop its servers still running (their folders stay, in the temp folder). */
const installExitHook = (bin: string, owner: Owner | undefined): void => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const dataDir of running) {
      const args = [join(bin, 'pg_ctl'), '-D', dataDir, 'stop', '-m', 'immediate', '-w', '-t', '10'];
      try {
        if (owner === undefined) execFileSync(args[0]!, args.slice(1), { stdio: 'ignore', cwd: tmpdir() });
        else execFileSync('runuser', ['-u', 'postgres', '--', ...args], { stdio: 'ignore', cwd: tmpdir() });
      } catch {
        // Already stopped.
      }
    }
  });
};
