/**
 * What OpenTelemetry traces cost a request on the list path: the HTTP bench's `list` scenario
 * (GET /v1/pets?limit=20, the never-limited key, after 100 pets were created) on servers of one
 * store loaded together (bench/http/together.ts), each by its own connections: `off`, this build
 * as it runs without an SDK (PETSTORE_TRACES=auto finds none: no tracer, no span); `context`, the
 * same with only the SDK's AsyncLocalStorage context manager registered and one context entered
 * at start (what Node's AsyncLocalStorage costs every request once any span was made active);
 * `on 1`, an SDK registered before the server starts sampling every span
 * (bench/servers/traced-petstore-server.ts: batched and dropped), so a server span and a span per
 * store call; for each of BENCH_TRACES_RATIOS, `on <ratio>`, the same with PETSTORE_TRACES_RATIO
 * offering that share of the requests to the SDK (the production setting, docs/operating.md), and
 * `on <ratio> bare`, that with no context manager registered (nothing of AsyncLocalStorage on),
 * `sdk <ratio>`, the SDK's own sampler keeping that share of the traces
 * (ParentBased(TraceIdRatioBased)) with every request offered to it; and, given BENCH_BASE_DIR, `control`, a build
 * without tracing (another checkout, built), which says whether `off` costs anything. Prints each
 * round's server CPU per request, then per store the medians and the medians of the rounds'
 * ratios off / each other (target off / on ≥ 0.95 at the production ratio: on costs at most 5%)
 * and the spans each `on` server exported per response.
 *
 * Run with `npm run bench:traces`. Environment: BENCH_TRACES_RATIOS (0.01: the ratio
 * docs/operating.md advises; a comma list), TRACES_VARIANTS (the ids measured beside `off`, a
 * comma list; all unless given), PAIR_ROUNDS (10), PAIR_SECONDS (3),
 * TRACES_CONNECTIONS (17 each), TRACES_STORES (memory,redis), REDIS_URL
 * (redis://127.0.0.1:6379), BENCH_BASE_DIR (a built checkout without tracing, e.g.
 * `git archive bbedc43 | tar -x -C /tmp/base`, node_modules linked, `npm run build`).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { namesFromEnv, positiveFromEnv } from './http/env.js';
import type { Load } from './http/load.js';
import { pairSettingsFromEnv } from './http/operations-cost.js';
import { connectRedis, deleteKeysUnder } from './http/redis-stats.js';
import { median } from './http/report.js';
import { scenarios } from './http/scenarios.js';
import { serverSpecs, startServer, type RunningServer, type ServerSpec } from './http/servers.js';
import { measureTogether, type TogetherRound } from './http/together.js';

const STORES = ['memory', 'redis'] as const;
type Store = (typeof STORES)[number];

const settings = pairSettingsFromEnv(positiveFromEnv('TRACES_CONNECTIONS', 17));
const stores = namesFromEnv('TRACES_STORES', STORES);
const baseDir = process.env['BENCH_BASE_DIR'] === undefined || process.env['BENCH_BASE_DIR'] === '' ? undefined : resolve(process.env['BENCH_BASE_DIR']);
if (baseDir !== undefined && !existsSync(join(baseDir, 'dist', 'bench', 'servers', 'petstore-server.js'))) {
  throw new Error(`BENCH_BASE_DIR: no dist/bench/servers/petstore-server.js in ${baseDir}; build it first`);
}
const ratios = (process.env['BENCH_TRACES_RATIOS'] ?? '0.01').split(',').filter((text) => text !== '').map((text) => {
  const value = Number(text);
  if (!(value > 0 && value < 1)) throw new Error(`BENCH_TRACES_RATIOS: ${text} is no ratio between 0 and 1 (1 is always measured)`);
  return value;
});
interface Variant {
  readonly id: string;
  /** Where the `on` servers count their exported spans. */
  readonly spansFile?: string;
  readonly spec: (spec: ServerSpec) => ServerSpec;
}
const spansDir = mkdtempSync(join(tmpdir(), 'petstore-traces-'));
/** Sampled at `ratio` by PETSTORE_TRACES_RATIO before the SDK (which then samples every offered request), or by the SDK's own sampler alone. */
const traced = (ratio: number, by: 'service' | 'sdk'): Variant => {
  const id = by === 'service' || ratio === 1 ? `on ${ratio}` : `sdk ${ratio}`;
  const spansFile = join(spansDir, `spans-${id.replace(' ', '-')}`);
  const sdkRatio = by === 'sdk' ? ratio : 1;
  return {
    id,
    spansFile,
    spec: (spec) => ({
      ...spec,
      label: `${spec.label}, SDK registered, ${by === 'sdk' ? `the SDK sampling ${ratio}` : `PETSTORE_TRACES_RATIO=${ratio}`}`,
      script: 'traced-petstore-server.js',
      env: { ...spec.env, BENCH_TRACES_RATIO: String(sdkRatio), PETSTORE_TRACES_RATIO: by === 'service' ? String(ratio) : '1', BENCH_SPANS_FILE: spansFile },
    }),
  };
};
/** The same with no context manager registered: nothing of Node's AsyncLocalStorage is ever turned on. */
const withoutContextManager = (variant: Variant): Variant => ({
  id: `${variant.id} bare`,
  spansFile: `${variant.spansFile!}-bare`,
  spec: (spec) => {
    const traced = variant.spec(spec);
    return { ...traced, label: `${traced.label}, no context manager`, env: { ...traced.env, BENCH_SPANS_FILE: `${variant.spansFile!}-bare`, BENCH_NO_CONTEXT_MANAGER: '1' } };
  },
});
const allVariants: readonly Variant[] = [
  ...(baseDir === undefined ? [] : [{ id: 'control', spec: (spec: ServerSpec) => ({ ...spec, label: `${spec.label}, a build without tracing`, buildDir: baseDir }) }]),
  { id: 'off', spec: (spec) => ({ ...spec, label: `${spec.label}, no SDK` }) },
  {
    id: 'context',
    spec: (spec) => ({
      ...spec,
      label: `${spec.label}, the SDK's context manager alone`,
      script: 'traced-petstore-server.js',
      env: { ...spec.env, BENCH_CONTEXT_ONLY: '1', PETSTORE_TRACES: 'off' },
    }),
  },
  traced(1, 'service'),
  ...ratios.flatMap((ratio) => [traced(ratio, 'service'), withoutContextManager(traced(ratio, 'service')), traced(ratio, 'sdk')]),
];
// TRACES_VARIANTS: the servers measured, by id (`off` always): fewer servers on the cores, tighter rounds.
const chosen = process.env['TRACES_VARIANTS']?.split(',').filter((id) => id !== '');
for (const id of chosen ?? []) if (!allVariants.some((variant) => variant.id === id)) throw new Error(`TRACES_VARIANTS: ${id} is none of ${allVariants.map((variant) => variant.id).join(', ')}`);
const variants = chosen === undefined ? allVariants : allVariants.filter((variant) => variant.id === 'off' || chosen.includes(variant.id));
const scenario = scenarios(variants.length * settings.connectionsEach).find((candidate) => candidate.id === 'list')!;
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const redis = stores.includes('redis') ? await connectRedis(redisUrl) : undefined;
const runPrefix = `petstore-traces:${randomBytes(4).toString('hex')}:`;

const specOf = (store: Store, variant: Variant, index: number): ServerSpec =>
  variant.spec(serverSpecs({ url: redisUrl, prefix: `${runPrefix}${store}:${index}:` }).find((candidate) => candidate.name === store)!);

const ratio = (values: readonly number[]): string => `${median(values).toFixed(3)} (rounds ${Math.min(...values).toFixed(3)} to ${Math.max(...values).toFixed(3)})`;
const cpuOf = (rounds: readonly TogetherRound[], variant: Variant): number[] => rounds.map((round) => round.cpuUsPerRequest[variants.indexOf(variant)]!);
const off = variants.find((variant) => variant.id === 'off')!;

const measureStore = async (store: Store): Promise<void> => {
  console.log(`\n${store}: ${scenario.title}, ${variants.map(({ id }) => id).join(' / ')} loaded together, ${settings.connectionsEach} connections each, ${settings.rounds} rounds of ${settings.seconds} s`);
  if (store === 'redis' && redis === undefined) return console.log(`  not measured: no Redis answered at ${redisUrl}`);
  const running: { server: RunningServer; load: Load }[] = [];
  let rounds: TogetherRound[];
  try {
    for (const [index, variant] of variants.entries()) {
      const server = await startServer(specOf(store, variant, index));
      running.push({ server, load: await scenario.prepare(server.baseUrl, store) });
    }
    rounds = await measureTogether(running, scenario, settings, {
      onRound: (round, { cpuUsPerRequest, requestsPerSecond }) =>
        console.log(
          `  round ${String(round).padStart(2)}: ` +
            variants.map(({ id }, i) => `${id} ${cpuUsPerRequest[i]!.toFixed(1)} µs/req (${Math.round(requestsPerSecond[i]!)} req/s)`).join(', '),
        ),
    });
  } finally {
    await Promise.all(running.map(({ server }) => server.stop()));
  }
  const responses = (variant: Variant): number => rounds.reduce((sum, round) => sum + round.responses[variants.indexOf(variant)]!, 0);
  const over = (first: Variant, second: Variant): number[] => cpuOf(rounds, first).map((cpu, i) => cpu / cpuOf(rounds, second)[i]!);
  for (const variant of variants) {
    const rps = rounds.map((round) => round.requestsPerSecond[variants.indexOf(variant)]!);
    const against = variant === off ? '' : `, off / ${variant.id}: ${ratio(over(off, variant))}`;
    console.log(`  ${variant.id.padEnd(8)} ${median(cpuOf(rounds, variant)).toFixed(1).padStart(6)} µs/req, ${Math.round(median(rps)).toLocaleString('en-US')} req/s${against}`);
  }
  console.log(`  target: off / on ≥ 0.95 at the production ratio (on ${ratios.join(', on ')})${baseDir === undefined ? '' : '; off / control 1: off costs nothing'}`);
  const context = variants.find((variant) => variant.id === 'context');
  for (const variant of variants) {
    if (variant.spansFile === undefined || context === undefined) continue;
    // The SDK's span processors enter a context to export, so any process exporting spans pays what `context` measures.
    console.log(`  context / ${variant.id}: ${ratio(over(context, variant))} (what the spans cost beyond the SDK's context manager)`);
  }
  for (const variant of variants) {
    if (variant.spansFile === undefined) continue;
    // The warm-up's and the seeding's requests made spans too: an upper bound per measured response.
    const spans = existsSync(variant.spansFile) ? Number(readFileSync(variant.spansFile, 'utf8')) : Number.NaN;
    console.log(`  spans exported by ${variant.id}: ${spans.toLocaleString('en-US')}, ${(spans / responses(variant)).toFixed(3)} per measured response (warm-up and seeding included)`);
    rmSync(variant.spansFile, { force: true });
  }
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
