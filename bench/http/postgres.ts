import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The PostgreSQL server the bench creates its databases on: psql's -h/-U (trust auth on
 * 127.0.0.1:5432, user postgres), BENCH_PG_HOST / BENCH_PG_PORT / BENCH_PG_USER to move it.
 * Only databases the bench created (`petstore_bench_<random hex>`) are ever dropped.
 */
const host = process.env['BENCH_PG_HOST'] || '127.0.0.1';
const port = process.env['BENCH_PG_PORT'] || '5432';
const user = process.env['BENCH_PG_USER'] || 'postgres';
const PSQL_TIMEOUT_MS = 30_000;
const BENCH_DATABASE = /^petstore_bench_[0-9a-f]{16}$/;

const psql = (sql: string): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(
      'psql',
      ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', host, '-p', port, '-U', user, '-d', 'postgres', '-c', sql],
      { timeout: PSQL_TIMEOUT_MS, env: { ...process.env, PGCONNECT_TIMEOUT: '5' } },
      (error, stdout, stderr) => (error === null ? resolve(stdout.trim()) : reject(new Error(`psql ${JSON.stringify(sql)}: ${stderr.trim() || error.message}`))),
    );
  });

/** The server's version, or undefined when psql cannot reach it (the bench then skips the PostgreSQL store). */
export const postgresVersion = async (): Promise<string | undefined> => {
  try {
    return await psql('SHOW server_version');
  } catch {
    return undefined;
  }
};

/** A setting of the server, e.g. `synchronous_commit`. */
export const postgresSetting = (name: 'synchronous_commit' | 'fsync' | 'shared_buffers' | 'max_connections'): Promise<string> => psql(`SHOW ${name}`);

export interface BenchDatabase {
  readonly name: string;
  /** DATABASE_URL of the service. */
  readonly url: string;
  /** DROP DATABASE <this one> WITH (FORCE): ends the connections still open to it. Idempotent. */
  drop(): Promise<void>;
}

/** CREATE DATABASE petstore_bench_<random hex>: empty; the service applies its migrations when it starts. */
export const createBenchDatabase = async (): Promise<BenchDatabase> => {
  const name = `petstore_bench_${randomBytes(8).toString('hex')}`;
  await psql(`CREATE DATABASE ${name}`);
  let dropped = false;
  return {
    name,
    url: `postgres://${user}@${host}:${port}/${name}`,
    drop: async () => {
      if (dropped) return;
      if (!BENCH_DATABASE.test(name)) throw new Error(`refusing to drop ${name}: not a bench database`);
      await psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      dropped = true;
    },
  };
};

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (utime + stime) of every process named `command` (/proc/<pid>/stat), by pid; undefined without /proc. */
export type ProcessCpu = ReadonlyMap<number, number>;

export const processCpu = (command: string): ProcessCpu | undefined => {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const open = stat.indexOf('(');
      const close = stat.lastIndexOf(')');
      if (stat.slice(open + 1, close) !== command) continue;
      const fields = stat.slice(close + 2).split(' ');
      cpu.set(Number(pid), (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return cpu;
};

/**
 * CPU seconds those processes used between two snapshots: for a process in both, the
 * difference; one started in between counts whole. One that exited in between is lost (a
 * PostgreSQL backend lives as long as its connection: the service's pool keeps them open).
 */
export const cpuBetween = (before: ProcessCpu | undefined, after: ProcessCpu | undefined): number | undefined => {
  if (before === undefined || after === undefined) return undefined;
  let seconds = 0;
  for (const [pid, cpu] of after) seconds += cpu - (before.get(pid) ?? 0);
  return seconds;
};
