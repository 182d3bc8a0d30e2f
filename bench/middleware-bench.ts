/**
 * Middleware bench: this service's rate-limit middleware (`rateLimitMiddleware` in express 5,
 * `rateLimitHook` in fastify 5) beside the limiters one would pick instead (express-rate-limit,
 * with rate-limit-redis on Redis; @fastify/rate-limit), each on an in-memory store and on
 * Redis, each server its own process on 127.0.0.1 answering `GET /hello` with a small JSON.
 *
 * 1. Throughput: autocannon, 50 connections, interleaved rounds (the order rotating from round
 *    to round), each measurement after a warm-up of its own; req/s, p50/p99, the server's CPU
 *    per request (/proc), and for Redis the redis-server's. One subject for every request, a
 *    limit of 1e9 per minute: nothing is refused.
 * 2. Exactness: each Redis-backed limiter as two processes on one Redis prefix, 100 per
 *    minute on one subject (bench/middleware/exactness.ts).
 *
 * Run with `npm run bench:middleware` (builds first). Environment: BENCH_ROUNDS (3),
 * BENCH_SECONDS (4), BENCH_WARMUP_SECONDS (2), REDIS_URL (redis://127.0.0.1:6379; without a
 * Redis, the Redis stores and the exactness check are skipped, and said so),
 * BENCH_EXACTNESS=off to skip the exactness check (about 65 s). Redis keys are written only
 * under `mw-bench:<random hex>:`, and those are deleted at the end with SCAN + UNLINK.
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { positiveFromEnv } from './http/env.js';
import { runLoad, type Measurement, type RepeatedLoad } from './http/load.js';
import { cpuBetween, processCpu } from './http/postgres.js';
import { connectRedis, deleteKeysUnder, redisVersion } from './http/redis-stats.js';
import { median } from './http/report.js';
import type { StoreName } from './middleware/common.js';
import { BOUNDARY_SCHEDULE_MS, BURST_SIZE, EXACT_LIMIT, admittedOf, checkExactness, type ExactnessResult } from './middleware/exactness.js';
import { startServer, type RunningServer } from './middleware/launch.js';
import { variants, type Framework, type Variant } from './middleware/variants.js';

const CONNECTIONS = 50;
const settings = {
  rounds: positiveFromEnv('BENCH_ROUNDS', 3),
  seconds: positiveFromEnv('BENCH_SECONDS', 4),
  warmUpSeconds: positiveFromEnv('BENCH_WARMUP_SECONDS', 2),
};
const exactnessWanted = process.env['BENCH_EXACTNESS'] !== 'off';

const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
if (!/^redis:\/\/(127\.0\.0\.1|localhost)(:\d+)?(\/\d*)?$/.test(redisUrl)) throw new Error(`the bench only talks to a Redis on this machine, not ${redisUrl}`);
const redis = await connectRedis(redisUrl);
const runPrefix = `mw-bench:${randomBytes(6).toString('hex')}:`;
const stores: StoreName[] = redis === undefined ? ['memory'] : ['memory', 'redis'];

/** One measured round of one server. */
interface Round extends Measurement {
  readonly serverCpuUsPerRequest: number | undefined;
  readonly redisCpuUsPerRequest: number | undefined;
}

const LOAD: RepeatedLoad = { method: 'GET', path: 'hello', headers: {} };

const fixed = (value: number | undefined, digits: number): string => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits));
const thousands = (value: number): string => Math.round(value).toLocaleString('en-US');
const definedOnly = (values: readonly (number | undefined)[]): number[] => values.filter((value): value is number => value !== undefined);
const medianOf = (values: readonly (number | undefined)[]): number | undefined => {
  const known = definedOnly(values);
  return known.length === 0 ? undefined : median(known);
};

/** The header fields of one answer that a limiter wrote (lower case), e.g. `x-ratelimit-limit`. */
const limiterFields = (headers: Headers): string =>
  [...headers.keys()].filter((name) => /ratelimit|retry-after/.test(name)).sort().join(', ') || 'none';

const measure = async (server: RunningServer, isRedis: boolean): Promise<Round> => {
  await runLoad(server.url, LOAD, CONNECTIONS, settings.warmUpSeconds);
  const redisBefore = isRedis ? processCpu('redis-server') : undefined;
  const cpuBefore = server.cpuSeconds();
  const measurement = await runLoad(server.url, LOAD, CONNECTIONS, settings.seconds);
  const cpuAfter = server.cpuSeconds();
  const redisCpu = isRedis ? cpuBetween(redisBefore, processCpu('redis-server')) : undefined;
  const perRequest = (seconds: number | undefined): number | undefined =>
    seconds === undefined || measurement.responses === 0 ? undefined : (seconds * 1e6) / measurement.responses;
  return {
    ...measurement,
    serverCpuUsPerRequest: cpuBefore === undefined || cpuAfter === undefined ? undefined : perRequest(cpuAfter - cpuBefore),
    redisCpuUsPerRequest: perRequest(redisCpu),
  };
};

console.log(
  `Middleware bench: ${settings.rounds} interleaved rounds of ${settings.seconds} s (after ${settings.warmUpSeconds} s of warm-up each), ` +
    `${CONNECTIONS} connections, GET /hello, one subject, limit 1e9 per minute; node ${process.version}, ` +
    `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${redis === undefined ? `no Redis at ${redisUrl}: memory stores only, no exactness check` : `Redis ${await redisVersion(redis)}`}`,
);

const all = variants(stores);
const rounds = new Map<Variant, Round[]>(all.map((variant) => [variant, []]));
let exactness: Map<Variant, ExactnessResult> | undefined;
try {
  // 1. Throughput.
  const servers = new Map<Variant, RunningServer>();
  try {
    for (const variant of all) {
      const env = variant.store === 'redis' ? { BENCH_STORE: 'redis', REDIS_URL: redisUrl, BENCH_REDIS_PREFIX: `${runPrefix}tp:${variant.id}:` } : { BENCH_STORE: 'memory' };
      servers.set(variant, await startServer(variant.script, env));
    }
    console.log('\nAnswers to one GET /hello (status, the rate-limit fields written):');
    for (const variant of all) {
      const response = await fetch(`${servers.get(variant)!.url}/hello`, { headers: { 'x-bench-key': 'probe' }, signal: AbortSignal.timeout(5_000) });
      console.log(`  ${variant.id.padEnd(24)} ${response.status} ${await response.text()}; ${limiterFields(response.headers)}`);
    }
    console.log('');
    for (let round = 1; round <= settings.rounds; round++) {
      // The order rotates, so that no server is always measured first or after the same one.
      const shift = ((round - 1) * 3) % all.length;
      for (const variant of [...all.slice(shift), ...all.slice(0, shift)]) {
        const result = await measure(servers.get(variant)!, variant.store === 'redis');
        rounds.get(variant)!.push(result);
        const trouble = result.errors > 0 ? `, ${result.errors} socket errors/timeouts` : '';
        console.log(
          `  round ${round} ${variant.id.padEnd(24)} ${thousands(result.requestsPerSecond).padStart(7)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, ` +
            `p99 ${result.p99Ms.toFixed(2)} ms, non-2xx ${(100 * result.non2xxShare).toFixed(1)}%, server CPU ${fixed(result.serverCpuUsPerRequest, 1)} µs/req` +
            `${variant.store === 'redis' ? `, Redis CPU ${fixed(result.redisCpuUsPerRequest, 1)} µs/req` : ''}${trouble}`,
        );
      }
    }
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }

  // 2. Exactness, two instances per Redis-backed limiter, all limiters at once (their bursts staggered by 0.5 s).
  if (redis !== undefined && exactnessWanted) {
    const redisBacked = all.filter((variant) => variant.store === 'redis');
    const pairs = new Map<Variant, [RunningServer, RunningServer]>();
    console.log(
      `\nExactness: each Redis-backed limiter as 2 processes on one Redis prefix, ${EXACT_LIMIT} per minute on one subject ` +
        `(about ${Math.ceil(BOUNDARY_SCHEDULE_MS.second / 1000) + 2} s)...`,
    );
    try {
      for (const variant of redisBacked) {
        const env = { BENCH_STORE: 'redis', REDIS_URL: redisUrl, BENCH_REDIS_PREFIX: `${runPrefix}x:${variant.id}:`, BENCH_LIMIT: String(EXACT_LIMIT) };
        const [one, two] = await Promise.all([startServer(variant.script, env), startServer(variant.script, env)]);
        pairs.set(variant, [one, two]);
      }
      const results = await Promise.all(
        redisBacked.map(async (variant, i): Promise<[Variant, ExactnessResult]> => {
          await new Promise((resolve) => setTimeout(resolve, 500 * i));
          const [one, two] = pairs.get(variant)!;
          return [variant, await checkExactness([one.url, two.url], variant.id)];
        }),
      );
      exactness = new Map(results);
    } finally {
      await Promise.all([...pairs.values()].flat().map((server) => server.stop()));
    }
  }
} finally {
  if (redis !== undefined) {
    const deleted = await deleteKeysUnder(redis, runPrefix);
    console.log(`\nDeleted the run's ${deleted} Redis keys under ${runPrefix} (SCAN + UNLINK).`);
    redis.disconnect();
  }
}

// Tables.
console.log(`\n### Throughput (medians of ${settings.rounds} rounds of ${settings.seconds} s, ${CONNECTIONS} connections)\n`);
console.log('| server | store | req/s median | min – max | p50 ms | p99 ms | non-2xx + errors | server CPU µs/req | Redis CPU µs/req |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const variant of all) {
  const measured = rounds.get(variant)!;
  const rps = measured.map((round) => round.requestsPerSecond);
  const failed = measured.reduce((sum, round) => sum + Math.round(round.non2xxShare * round.responses) + round.errors, 0);
  const [name, store] = variant.label.split(' (') as [string, string];
  console.log(
    `| ${name} | ${store.slice(0, -1)} | ${thousands(median(rps))} | ${thousands(Math.min(...rps))} – ${thousands(Math.max(...rps))} | ` +
      `${fixed(median(measured.map((round) => round.p50Ms)), 2)} | ${fixed(median(measured.map((round) => round.p99Ms)), 2)} | ${failed} | ` +
      `${fixed(medianOf(measured.map((round) => round.serverCpuUsPerRequest)), 1)} | ${variant.store === 'redis' ? fixed(medianOf(measured.map((round) => round.redisCpuUsPerRequest)), 1) : '–'} |`,
  );
}

console.log('\n### This service\'s middleware over the reference, same framework, same store, same run\n');
console.log('req/s: ratio of the medians (above 1: more requests served). CPU: the reference\'s server CPU per request over this service\'s, the median of the rounds\' ratios (above 1: this service costs less). p99: this service\'s over the reference\'s (below 1: shorter).\n');
console.log('| framework | store | req/s own / reference | rounds | server CPU reference / own | rounds | p99 own / reference |');
console.log('|---|---|---:|---|---:|---|---:|');
for (const store of stores) {
  for (const framework of ['express', 'fastify'] as const satisfies readonly Framework[]) {
    const own = all.find((variant) => variant.framework === framework && variant.store === store && variant.limiter === 'own')!;
    const reference = all.find((variant) => variant.framework === framework && variant.store === store && variant.limiter === 'reference')!;
    const ownRounds = rounds.get(own)!;
    const referenceRounds = rounds.get(reference)!;
    const rpsRatios = ownRounds.map((round, i) => round.requestsPerSecond / referenceRounds[i]!.requestsPerSecond);
    const cpuRatios = definedOnly(
      ownRounds.map((round, i) => {
        const ownCpu = round.serverCpuUsPerRequest;
        const referenceCpu = referenceRounds[i]!.serverCpuUsPerRequest;
        return ownCpu === undefined || referenceCpu === undefined ? undefined : referenceCpu / ownCpu;
      }),
    );
    const rpsRatio = median(ownRounds.map((round) => round.requestsPerSecond)) / median(referenceRounds.map((round) => round.requestsPerSecond));
    const p99Ratio = median(ownRounds.map((round) => round.p99Ms)) / median(referenceRounds.map((round) => round.p99Ms));
    console.log(
      `| ${framework} | ${store} | **${rpsRatio.toFixed(2)}** | ${rpsRatios.map((ratio) => ratio.toFixed(2)).join(', ')} | ` +
        `**${fixed(cpuRatios.length === 0 ? undefined : median(cpuRatios), 2)}** | ${cpuRatios.map((ratio) => ratio.toFixed(2)).join(', ')} | ${p99Ratio.toFixed(2)} |`,
    );
  }
}

if (exactness !== undefined) {
  console.log(`\n### Exactness: 2 instances on one Redis, ${EXACT_LIMIT} per minute on one subject\n`);
  console.log(
    `Burst: ${BURST_SIZE} requests at once on a fresh subject, alternating between the two instances. ` +
      `Boundary: on another subject, 1 request at 0 s, then ${BURST_SIZE} at once at ${BOUNDARY_SCHEDULE_MS.first / 1000} s and ${BURST_SIZE} at ${BOUNDARY_SCHEDULE_MS.second / 1000} s ` +
      '(a fixed window opened by the first request ends at 60 s); "most in any rolling 60 s" counts the admitted answers of the boundary subject by their arrival.\n',
  );
  console.log(`| limiter (Redis, 2 instances) | burst: admitted of ${BURST_SIZE} | instance 1 + 2 | refused (429) | other answers or failures, all phases | boundary: at 0 s | at ${BOUNDARY_SCHEDULE_MS.first / 1000} s | at ${BOUNDARY_SCHEDULE_MS.second / 1000} s | most in any rolling 60 s | limit |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [variant, result] of exactness) {
    const { burst: single, opening, first, second } = result;
    const other = single.other + opening.other + first.other + second.other;
    console.log(
      `| ${variant.label} | **${admittedOf(single)}** | ${single.admittedBy[0]} + ${single.admittedBy[1]} | ${single.refused} | ${other} | ` +
        `${admittedOf(opening)} | ${admittedOf(first)} | ${admittedOf(second)} | **${result.mostInRollingWindow}** | ${EXACT_LIMIT} |`,
    );
  }
  const ownExact = [...exactness].filter(([variant]) => variant.limiter === 'own').every(([, result]) => admittedOf(result.burst) === EXACT_LIMIT && result.mostInRollingWindow <= EXACT_LIMIT);
  console.log(`\nThis service's sliding window: ${ownExact ? `exactly ${EXACT_LIMIT} admitted in the burst and at most ${EXACT_LIMIT} in any rolling 60 s, in both frameworks` : 'NOT EXACT in this run (see the table)'}.`);
} else if (exactnessWanted) {
  console.log('\nExactness: not checked, no Redis answered.');
}
