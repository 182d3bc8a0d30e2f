/**
 * How long a `petstore` command takes as a whole process, start to exit, beside `node -e 0` (the
 * floor of any Node process on this machine) timed in the same rounds: `--help`, `keys --help`,
 * and `keys list` on the memory store (its refusal: keys live in a shared store), on Redis and
 * on PostgreSQL, each listing one key. Operators and scripts run these by hand and the tests
 * spawn hundreds, so what a command loads before its first line is most of its time.
 *
 * Each round runs every command once, in turn, so drift hits all alike; the figures are the
 * medians of BENCH_RUNS rounds (9) after one warm-up: wall ms from spawn to exit, and the CPU
 * ms the process reports at exit (process.cpuUsage, user + system, written by a preload that
 * every command, the floor included, is started with). BENCH_BASE_CLI, the cli.js of another
 * build (a checkout's dist/src/app/cli/cli.js), adds its rows beside this build's.
 *
 * Redis: REDIS_URL (redis://127.0.0.1:6379), under a prefix of its own deleted afterwards with
 * SCAN + UNLINK. PostgreSQL: a database of its own (`petstore_bench_<random hex>`), migrated
 * by `petstore migrate`, dropped afterwards. Either is skipped, and said so, when it does not answer.
 *
 * Run: `npm run bench:cli-start` (`node dist/bench/cli-start.js` after a build).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { positiveFromEnv } from './http/env.js';
import { createBenchDatabase, postgresVersion, type BenchDatabase } from './http/postgres.js';
import { median } from './http/report.js';
import { connectRedis, deleteKeysUnder } from './http/redis-stats.js';

const rounds = positiveFromEnv('BENCH_RUNS', 9);
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const CLI = fileURLToPath(new URL('../src/app/cli/cli.js', import.meta.url));
const baseCli = process.env['BENCH_BASE_CLI'];

const cpuDir = mkdtempSync(join(tmpdir(), 'petstore-cli-start-'));
const cpuFile = join(cpuDir, 'cpu.json');
/** Writes the process's own CPU at exit: a parent can read no child's rusage from Node. */
const CPU_AT_EXIT = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.getBuiltinModule('node:fs').writeFileSync(process.env.BENCH_CPU_FILE,String((u.user+u.system)/1000))})`;

interface Command {
  readonly name: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The exit code the command must end with: a run that ends otherwise stops the bench. */
  readonly exitCode: number;
}

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

const run = (command: Command): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', CPU_AT_EXIT, ...command.args], {
      env: { PATH: process.env['PATH'] ?? '', ...command.env, BENCH_CPU_FILE: cpuFile },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== command.exitCode) return reject(new Error(`${command.name} exited ${code}, not ${command.exitCode}:\n${stderr}`));
      resolve({ wallMs, cpuMs: Number(readFileSync(cpuFile, 'utf8')) });
    });
  });

/** A `petstore` command of the build whose cli.js is `cli`, its rows named after `build`. */
const petstore =
  (cli: string, build: string) =>
  (name: string, args: readonly string[], env: Readonly<Record<string, string>> = {}, exitCode = 0): Command => ({
    name: `${build}petstore ${name}`,
    args: [cli, ...args],
    env,
    exitCode,
  });

/** Runs `args` once with `env`, for the set-up: the store's schema and its one key. */
const setUp = async (args: readonly string[], env: Readonly<Record<string, string>>): Promise<void> => {
  await run({ name: `petstore ${args.join(' ')}`, args: [CLI, ...args], env, exitCode: 0 });
};

const FLOOR = 'node -e 0';
const commands: Command[] = [{ name: FLOOR, args: ['-e', '0'], env: {}, exitCode: 0 }];
const skipped: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

const redis = await connectRedis(redisUrl);
const postgresAt = await postgresVersion();
try {
  const stores: [string, Record<string, string>][] = [];
  if (redis === undefined) skipped.push(`Redis (no answer at ${redisUrl})`);
  else {
    const prefix = `petstore-bench-cli:${randomBytes(4).toString('hex')}:`;
    cleanups.push(() => deleteKeysUnder(redis, prefix));
    stores.push(['redis', { PETSTORE_STORE: 'redis', REDIS_URL: redisUrl, PETSTORE_REDIS_PREFIX: prefix }]);
  }
  let database: BenchDatabase | undefined;
  if (postgresAt === undefined) skipped.push('PostgreSQL (psql got no answer)');
  else {
    database = await createBenchDatabase();
    cleanups.push(database.drop);
    const env = { PETSTORE_STORE: 'postgres', DATABASE_URL: database.url };
    await setUp(['migrate'], env);
    stores.push(['postgres', env]);
  }
  for (const [, env] of stores) await setUp(['keys', 'create', '--plan', 'pro', '--label', 'bench'], env);

  const builds: [string, string][] = [[CLI, baseCli === undefined ? '' : 'this build: ']];
  if (baseCli !== undefined) builds.push([baseCli, 'base build: ']);
  for (const [cli, build] of builds) {
    const command = petstore(cli, build);
    commands.push(command('--help', ['--help']), command('keys --help', ['keys', '--help']), command('keys list (memory: refused)', ['keys', 'list'], { PETSTORE_STORE: 'memory' }, 1));
    for (const [store, env] of stores) commands.push(command(`keys list (${store})`, ['keys', 'list'], env));
  }

  const samples = new Map(commands.map((command) => [command.name, [] as Sample[]]));
  for (const command of commands) await run(command);
  for (let round = 0; round < rounds; round++) {
    for (const command of commands) samples.get(command.name)!.push(await run(command));
  }

  const figures = (name: string): Sample => {
    const taken = samples.get(name)!;
    return { wallMs: median(taken.map((sample) => sample.wallMs)), cpuMs: median(taken.map((sample) => sample.cpuMs)) };
  };
  const floor = figures(FLOOR);
  console.log(`A command start to exit, ${process.version}, medians of ${rounds} rounds:\n`);
  console.log(`| command | wall ms | CPU ms | wall × ${FLOOR} | CPU × ${FLOOR} |\n|---|---:|---:|---:|---:|`);
  for (const { name } of commands) {
    const { wallMs, cpuMs } = figures(name);
    console.log(`| ${name} | ${wallMs.toFixed(0)} | ${cpuMs.toFixed(0)} | ${(wallMs / floor.wallMs).toFixed(2)} | ${(cpuMs / floor.cpuMs).toFixed(2)} |`);
  }
  for (const store of skipped) console.log(`\nskipped: ${store}`);
} finally {
  for (const cleanup of cleanups) await cleanup();
  redis?.disconnect();
  rmSync(cpuDir, { recursive: true, force: true });
}
