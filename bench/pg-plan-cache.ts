/**
 * What PostgreSQL spends on a turn's page read (PostgresPetRepository.pageJson: the batched
 * keyset statement that joins the page's JSON), with the service's plan_cache_mode
 * (force_generic_plan) against PostgreSQL's default (auto), which plans a prepared statement
 * again at every execution while its generic plan looks dearer than the custom ones.
 *
 * One database of 100 pets (as the HTTP bench seeds), one repository; its pipelined
 * connection switches setting between rounds (SET, which a prepared statement obeys at its next
 * execution), rounds alternating so drift hits both alike. Counts the backend's CPU from
 * /proc/<pid>/stat (PostgreSQL on this machine; without it, wall time only) and the wall time
 * of each read, awaited one at a time. Prints medians over the rounds and auto's ratio to the
 * service's setting.
 *
 * Run: `npm run build && node dist/bench/pg-plan-cache.js`. Environment: BENCH_PG_HOST /
 * BENCH_PG_PORT / BENCH_PG_USER (127.0.0.1, 5432, postgres), BENCH_ROUNDS (6), BENCH_READS
 * (2,000 per round).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { migrate } from '../src/adapters/postgres/migrate.js';
import { readMigrations } from '../src/adapters/postgres/migration-files.js';
import { createPostgresDatabase } from '../src/adapters/postgres/postgres-database.js';
import { PostgresPetRepository } from '../src/adapters/postgres/postgres-pet-repository.js';
import { SystemClock } from '../src/adapters/system/system-clock.js';
import { positiveFromEnv } from './http/env.js';
import { createBenchDatabase } from './http/postgres.js';
import { median } from './http/report.js';

const rounds = positiveFromEnv('BENCH_ROUNDS', 6);
const reads = positiveFromEnv('BENCH_READS', 2_000);
const SETTINGS = ['force_generic_plan', 'auto'] as const;
type Setting = (typeof SETTINGS)[number];

/** The backend's user + system CPU in µs, or undefined where /proc does not show it (PostgreSQL elsewhere). */
const backendCpuMicros = (pid: number): number | undefined => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
  } catch {
    return undefined;
  }
};

const database = await createBenchDatabase();
const db = createPostgresDatabase({ url: database.url, max: 1, timeoutMs: 10_000 });
try {
  await migrate(db, readMigrations());
  const pets = new PostgresPetRepository(db, new SystemClock());
  for (let i = 1; i <= 100; i++) await pets.create({ name: `pet ${i}`, categoryId: 1, status: 'available' });
  // pageJson reads through the pipelined connection: the session that SET changes.
  const pid = Number((await db.read<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
  const measured = new Map<Setting, { cpu: number[]; wall: number[] }>(SETTINGS.map((setting) => [setting, { cpu: [], wall: [] }]));
  for (let round = 0; round <= rounds; round++) {
    for (const setting of SETTINGS) {
      await db.read(`SET plan_cache_mode = ${setting}`);
      // Past PostgreSQL's five custom plans before it first weighs the generic one.
      for (let i = 0; i < 10; i++) await pets.pageJson({ afterId: 0, limit: 20 });
      const cpuBefore = backendCpuMicros(pid);
      const started = performance.now();
      for (let i = 0; i < reads; i++) await pets.pageJson({ afterId: 0, limit: 20 });
      const wall = ((performance.now() - started) * 1000) / reads;
      const cpuAfter = backendCpuMicros(pid);
      // Round 0 warms both up and is not counted.
      if (round === 0) continue;
      measured.get(setting)!.wall.push(wall);
      if (cpuBefore !== undefined && cpuAfter !== undefined) measured.get(setting)!.cpu.push((cpuAfter - cpuBefore) / reads);
    }
  }
  console.log(`A turn's page read (20 pets of 100, JSON joined by PostgreSQL), ${reads.toLocaleString('en-US')} reads a round, median of ${rounds} rounds:\n`);
  console.log('| plan_cache_mode | backend CPU µs per read | wall µs per read |\n|---|---:|---:|');
  for (const [setting, { cpu, wall }] of measured) {
    console.log(`| ${setting}${setting === SETTINGS[0] ? ' (the service)' : ''} | ${cpu.length === 0 ? '–' : median(cpu).toFixed(1)} | ${median(wall).toFixed(1)} |`);
  }
  const [service, auto] = SETTINGS.map((setting) => measured.get(setting)!);
  const ratio = (of: (figures: { cpu: number[]; wall: number[] }) => number[]): string => (median(of(auto!)) / median(of(service!))).toFixed(2);
  console.log(`\nauto / the service: backend CPU ${service!.cpu.length === 0 ? '–' : ratio(({ cpu }) => cpu)}, wall ${ratio(({ wall }) => wall)}`);
} finally {
  await db.end();
  await database.drop();
}
