/**
 * What a refactor cost the HTTP hot path, measured on two servers loaded at the same time
 * (bench/http/paired.ts): the base build (another checkout, built) and this build, each the
 * HTTP bench's `memory` server (`bench/servers/petstore-server.ts`: startPetStore with the bench
 * keys, PETSTORE_STORE=memory) run from its own dist/, each loaded by its own 25 connections.
 * Prints each round's server CPU per request and the median of the rounds' ratios (base / this
 * build: 1 is no change, below 1 this build spends more per request), for each scenario.
 * With PAIR_STORE=redis both are the HTTP bench's `redis` server instead, on one Redis
 * (REDIS_URL), each under a key prefix of its own, deleted after: the ratio is then the
 * servers' CPU only, the Redis they share spends for both.
 *
 * Prepare the base, e.g.:
 *   git worktree add /tmp/petstore-base e0c65ef && cd /tmp/petstore-base && npm ci && npm run build
 * Run with `BENCH_BASE_DIR=/tmp/petstore-base npm run bench:builds`. Environment: BENCH_BASE_DIR
 * (required), PAIR_ROUNDS (10), PAIR_SECONDS (3), PAIR_SCENARIOS (list,limited), PAIR_STORE
 * (memory or redis), REDIS_URL (redis://127.0.0.1:6379).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describePairRound, pairSettingsFromEnv, summarisePair, type PairNames } from './http/operations-cost.js';
import { measurePaired } from './http/paired.js';
import { connectRedis, deleteKeysUnder } from './http/redis-stats.js';
import { scenarios, type ScenarioId } from './http/scenarios.js';
import { serverSpecs, type ServerSpec } from './http/servers.js';

const baseDirSetting = process.env['BENCH_BASE_DIR'];
if (baseDirSetting === undefined || baseDirSetting === '') throw new Error('BENCH_BASE_DIR: the base build\'s checkout (built: npm ci && npm run build)');
const baseDir = resolve(baseDirSetting);

const settings = pairSettingsFromEnv();
const scenarioIds = (process.env['PAIR_SCENARIOS'] ?? 'list,limited').split(',').filter((id) => id !== '') as ScenarioId[];
const known = scenarios(2 * settings.connectionsEach);
const chosen = scenarioIds.map((id) => {
  const scenario = known.find((candidate) => candidate.id === id);
  if (scenario === undefined) throw new Error(`PAIR_SCENARIOS: no scenario ${id} (${known.map((candidate) => candidate.id).join(', ')})`);
  return scenario;
});

/** The commit a checkout is at, to say what was compared (and whether its src/ differs from it); '?' where it is no git checkout. */
const commitOf = (dir: string): string => {
  try {
    const status = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim();
    const commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    return status === '' ? commit : `${commit} + uncommitted src changes`;
  } catch {
    return '?';
  }
};

const store = process.env['PAIR_STORE'] ?? 'memory';
if (store !== 'memory' && store !== 'redis') throw new Error(`PAIR_STORE: memory or redis, not ${store}`);
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const redis = store === 'redis' ? await connectRedis(redisUrl) : undefined;
if (store === 'redis' && redis === undefined) throw new Error(`PAIR_STORE=redis: no Redis answers at ${redisUrl}`);
const pairPrefix = `petstore-pair:${randomBytes(4).toString('hex')}:`;
const specOf = (prefix: string): ServerSpec => {
  const spec = serverSpecs({ url: redisUrl, prefix }).find((candidate) => candidate.name === store);
  if (spec === undefined) throw new Error(`no ${store} server in the HTTP bench`);
  return spec;
};
const baseCommit = commitOf(baseDir);
const thisCommit = commitOf(process.cwd());
const storeName = store === 'redis' ? 'Redis store' : 'memory store';
/** A scenario's two servers, on a Redis each under a prefix of the scenario's own. */
const pairFor = (scenarioId: string): [ServerSpec, ServerSpec] => {
  const baseSpec = specOf(`${pairPrefix}${scenarioId}:base:`);
  const thisSpec = specOf(`${pairPrefix}${scenarioId}:this:`);
  return [
    { ...baseSpec, label: `base build (${baseCommit}), ${storeName}`, buildDir: baseDir },
    { ...thisSpec, label: `this build (${thisCommit}), ${storeName}` },
  ];
};
// The base runs its own compiled server script, which loads its own dist/src; same script name, same environment.
const baseScript = join(baseDir, 'dist', 'bench', 'servers', specOf(pairPrefix).script);
if (!existsSync(baseScript)) throw new Error(`BENCH_BASE_DIR: no ${baseScript}; build the base first (npm ci && npm run build)`);

const names: PairNames = { first: 'base', second: 'this build', ratio: 'base / this build' };

console.log(`Base build ${baseCommit} (${baseDir}) against this build ${thisCommit}, ${storeName}, loaded together, ${settings.connectionsEach} connections each, ${settings.rounds} rounds of ${settings.seconds} s`);
try {
  for (const scenario of chosen) {
    console.log(`\n${scenario.id}: ${scenario.title} (expected: ${scenario.expected})`);
    const rounds = await measurePaired(pairFor(scenario.id), scenario, settings, (round, result) => console.log(describePairRound(round, result, names)));
    console.log(summarisePair(rounds, names));
  }
} finally {
  if (redis !== undefined) {
    await deleteKeysUnder(redis, pairPrefix);
    redis.disconnect();
  }
}
