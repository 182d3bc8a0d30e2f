/**
 * What PETSTORE_WORKERS buys on this machine: the standalone server (the CLI, Redis store) with
 * 1 worker, 2 workers accepting from the shared socket (the service's choice), and 2 workers
 * under node:cluster's round robin (NODE_CLUSTER_SCHED_POLICY=rr), each loaded in turn with
 * the `list` scenario over 50 connections, rounds interleaved. Per variant: req/s, the CPU
 * per request of the supervisor and all its workers (/proc), and req/s over 1 worker's.
 *
 * `npm run build && node dist/bench/workers.js`. Environment: BENCH_ROUNDS (3), BENCH_SECONDS
 * (4), BENCH_WARMUP_SECONDS (1), REDIS_URL. The load generator and Redis share the machine's
 * cores with the workers: on 2 cores a second worker has less than a core of its own.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpuSecondsOf, stopChild } from './http/child-process.js';
import { startCliServer, type CliServer } from './http/cli-server.js';
import { positiveFromEnv } from './http/env.js';
import { runLoad } from './http/load.js';
import { connectRedis, deleteKeysUnder } from './http/redis-stats.js';
import { median } from './http/report.js';
import { scenarios } from './http/scenarios.js';

const CONNECTIONS = 50;
const rounds = positiveFromEnv('BENCH_ROUNDS', 3);
const seconds = positiveFromEnv('BENCH_SECONDS', 4);
const warmUpSeconds = positiveFromEnv('BENCH_WARMUP_SECONDS', 1);
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';

interface Variant {
  readonly label: string;
  readonly env: Readonly<Record<string, string>>;
}
const VARIANTS: readonly Variant[] = [
  { label: '1 worker', env: { PETSTORE_WORKERS: '1' } },
  { label: '2 workers, shared socket (default)', env: { PETSTORE_WORKERS: '2' } },
  { label: '2 workers, round robin', env: { PETSTORE_WORKERS: '2', NODE_CLUSTER_SCHED_POLICY: 'rr' } },
];

const start = (variant: Variant, prefix: string): Promise<CliServer> =>
  startCliServer(variant.label, { PETSTORE_STORE: 'redis', REDIS_URL: redisUrl, PETSTORE_REDIS_PREFIX: prefix, ...variant.env });

/** The supervisor's CPU seconds and its workers' (its children, from /proc). */
const treeCpuSeconds = (pid: number): number => {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return [pid, ...children].reduce((sum, child) => sum + (cpuSecondsOf(child) ?? 0), 0);
};

const redis = await connectRedis(redisUrl);
if (redis === undefined) throw new Error(`needs Redis at ${redisUrl}`);
const list = scenarios(CONNECTIONS).find((scenario) => scenario.id === 'list')!;
const prefix = `petstore-bench:${randomBytes(4).toString('hex')}:workers:`;
console.log(`${list.title}; ${CONNECTIONS} connections, ${rounds} interleaved rounds of ${seconds} s after ${warmUpSeconds} s of warm-up, node ${process.version}`);

const results = VARIANTS.map(() => ({ rps: [] as number[], cpuUs: [] as number[], failed: 0 }));
const running: CliServer[] = [];
try {
  for (const [i, variant] of VARIANTS.entries()) running.push(await start(variant, `${prefix}${i}:`));
  const loads = await Promise.all(running.map((server) => list.prepare(server.baseUrl, 'redis')));
  for (let round = 1; round <= rounds; round++) {
    for (const [i, server] of running.entries()) {
      await runLoad(server.baseUrl, loads[i]!, CONNECTIONS, warmUpSeconds);
      const before = treeCpuSeconds(server.child.pid!);
      const measured = await runLoad(server.baseUrl, loads[i]!, CONNECTIONS, seconds);
      const cpuUs = ((treeCpuSeconds(server.child.pid!) - before) * 1e6) / measured.responses;
      results[i]!.rps.push(measured.requestsPerSecond);
      results[i]!.cpuUs.push(cpuUs);
      results[i]!.failed += Math.round(measured.non2xxShare * measured.responses) + measured.errors;
      console.log(`  round ${round} ${VARIANTS[i]!.label}: ${Math.round(measured.requestsPerSecond).toLocaleString('en-US')} req/s, ${cpuUs.toFixed(0)} µs CPU/req`);
    }
  }
} finally {
  await Promise.all(running.map((server) => stopChild(server.child, 15_000)));
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
}

const integer = (value: number): string => Math.round(value).toLocaleString('en-US');
const single = median(results[0]!.rps);
console.log('\n| variant | req/s median | min – max | CPU µs/req (supervisor + workers) | req/s / 1 worker | non-2xx + errors |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [i, variant] of VARIANTS.entries()) {
  const { rps, cpuUs, failed } = results[i]!;
  console.log(
    `| ${variant.label} | ${integer(median(rps))} | ${integer(Math.min(...rps))} – ${integer(Math.max(...rps))} | ${integer(median(cpuUs))} | ${(median(rps) / single).toFixed(2)} | ${failed} |`,
  );
}
