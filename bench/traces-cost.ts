/**
 * What OpenTelemetry traces cost a request on the list path: the HTTP bench's `list` scenario
 * (GET /v1/pets?limit=20, the never-limited key, after 100 pets were created) on servers of one
 * store loaded together (bench/http/together.ts), each by its own connections: `off`, this build
 * as it runs without an SDK (PETSTORE_TRACES=auto finds none: no tracer, no span); `on`, the same
 * with an SDK registered before it starts (bench/servers/traced-petstore-server.ts: every span
 * sampled, batched and dropped), so a server span and a span per store call; and, given
 * BENCH_BASE_DIR, `control`, a build without tracing (another checkout, built), which says
 * whether `off` costs anything. Prints each round's server CPU per request, then per store the
 * medians and the medians of the rounds' ratios off / on (target ≥ 0.95: on costs at most 5%)
 * and control / off (1: off costs nothing), and the spans the `on` server exported per response.
 *
 * Run with `npm run bench:traces`. Environment: PAIR_ROUNDS (10), PAIR_SECONDS (3),
 * TRACES_CONNECTIONS (17 each), TRACES_STORES (memory,redis), REDIS_URL
 * (redis://127.0.0.1:6379), BENCH_BASE_DIR (a built checkout without tracing, e.g.
 * `git archive bbedc43 | tar -x -C /tmp/base`, node_modules linked, `npm run build`).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { positiveFromEnv } from './http/env.js';
import type { Load } from './http/load.js';
import { PAIR_DEFAULTS } from './http/operations-cost.js';
import { connectRedis, deleteKeysUnder } from './http/redis-stats.js';
import { median } from './http/report.js';
import { scenarios } from './http/scenarios.js';
import { serverSpecs, startServer, type RunningServer, type ServerSpec } from './http/servers.js';
import { measureTogether, type TogetherRound } from './http/together.js';

const STORES = ['memory', 'redis'] as const;
type Store = (typeof STORES)[number];

const settings = {
  ...PAIR_DEFAULTS,
  rounds: positiveFromEnv('PAIR_ROUNDS', PAIR_DEFAULTS.rounds),
  seconds: positiveFromEnv('PAIR_SECONDS', PAIR_DEFAULTS.seconds),
  connectionsEach: positiveFromEnv('TRACES_CONNECTIONS', 17),
};
const stores = (process.env['TRACES_STORES'] ?? STORES.join(',')).split(',').filter((name) => name !== '') as Store[];
for (const store of stores) if (!STORES.includes(store)) throw new Error(`TRACES_STORES: ${store} is none of ${STORES.join(', ')}`);
const baseDir = process.env['BENCH_BASE_DIR'] === undefined || process.env['BENCH_BASE_DIR'] === '' ? undefined : resolve(process.env['BENCH_BASE_DIR']);
if (baseDir !== undefined && !existsSync(join(baseDir, 'dist', 'bench', 'servers', 'petstore-server.js'))) {
  throw new Error(`BENCH_BASE_DIR: no dist/bench/servers/petstore-server.js in ${baseDir}; build it first`);
}
type Variant = 'control' | 'off' | 'on';
const variants: readonly Variant[] = [...(baseDir === undefined ? [] : (['control'] as const)), 'off', 'on'];
const scenario = scenarios(variants.length * settings.connectionsEach).find((candidate) => candidate.id === 'list')!;
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const redis = stores.includes('redis') ? await connectRedis(redisUrl) : undefined;
const runPrefix = `petstore-traces:${randomBytes(4).toString('hex')}:`;
const spansDir = mkdtempSync(join(tmpdir(), 'petstore-traces-'));
const spansFile = join(spansDir, 'spans');

const specOf = (store: Store, variant: Variant): ServerSpec => {
  const spec = serverSpecs({ url: redisUrl, prefix: `${runPrefix}${store}:${variant}:` }).find((candidate) => candidate.name === store)!;
  if (variant === 'control') return { ...spec, label: `${spec.label}, a build without tracing`, buildDir: baseDir! };
  if (variant === 'off') return { ...spec, label: `${spec.label}, no SDK` };
  return { ...spec, label: `${spec.label}, SDK registered`, script: 'traced-petstore-server.js', env: { ...spec.env, BENCH_SPANS_FILE: spansFile } };
};

const ratio = (values: readonly number[]): string => `${median(values).toFixed(3)} (rounds ${Math.min(...values).toFixed(3)} to ${Math.max(...values).toFixed(3)})`;
const cpuOf = (rounds: readonly TogetherRound[], variant: Variant): number[] => rounds.map((round) => round.cpuUsPerRequest[variants.indexOf(variant)]!);

const measureStore = async (store: Store): Promise<void> => {
  console.log(`\n${store}: ${scenario.title}, ${variants.join(' / ')} loaded together, ${settings.connectionsEach} connections each, ${settings.rounds} rounds of ${settings.seconds} s`);
  if (store === 'redis' && redis === undefined) return console.log(`  not measured: no Redis answered at ${redisUrl}`);
  const running: { server: RunningServer; load: Load }[] = [];
  let rounds: TogetherRound[];
  try {
    for (const variant of variants) {
      const server = await startServer(specOf(store, variant));
      running.push({ server, load: await scenario.prepare(server.baseUrl, store) });
    }
    rounds = await measureTogether(running, scenario, settings, {
      onRound: (round, { cpuUsPerRequest, requestsPerSecond }) =>
        console.log(
          `  round ${String(round).padStart(2)}: ` +
            variants.map((variant, i) => `${variant} ${cpuUsPerRequest[i]!.toFixed(1)} µs/req (${Math.round(requestsPerSecond[i]!)} req/s)`).join(', '),
        ),
    });
  } finally {
    await Promise.all(running.map(({ server }) => server.stop()));
  }
  const responses = rounds.reduce((sum, round) => sum + round.responses[variants.indexOf('on')]!, 0);
  // The warm-up's and the seeding's requests made spans too: an upper bound per measured response.
  const spans = existsSync(spansFile) ? Number(readFileSync(spansFile, 'utf8')) : Number.NaN;
  for (const variant of variants) {
    const rps = rounds.map((round) => round.requestsPerSecond[variants.indexOf(variant)]!);
    console.log(`  ${variant.padEnd(8)} ${median(cpuOf(rounds, variant)).toFixed(1).padStart(6)} µs/req, ${Math.round(median(rps)).toLocaleString('en-US')} req/s`);
  }
  const over = (first: Variant, second: Variant): number[] => cpuOf(rounds, first).map((cpu, i) => cpu / cpuOf(rounds, second)[i]!);
  console.log(`  CPU per request, off / on: ${ratio(over('off', 'on'))} (target ≥ 0.95)`);
  if (baseDir !== undefined) console.log(`  CPU per request, control / off: ${ratio(over('control', 'off'))} (1: off costs nothing)`);
  console.log(`  spans exported by on: ${spans.toLocaleString('en-US')}, ${(spans / responses).toFixed(2)} per measured response (warm-up and seeding included)`);
};

try {
  for (const store of stores) await measureStore(store);
} finally {
  if (redis !== undefined) {
    await deleteKeysUnder(redis, runPrefix);
    redis.disconnect();
  }
  rmSync(spansDir, { recursive: true, force: true });
}
