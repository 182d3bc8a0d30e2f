/**
 * What a refactor cost the HTTP hot path, measured on two servers loaded at the same time
 * (bench/http/paired.ts): the base build (another checkout, built) and this build, each the
 * HTTP bench's `memory` server (`bench/servers/petstore-server.ts`: startPetStore with the bench
 * keys, PETSTORE_STORE=memory) run from its own dist/, each loaded by its own 25 connections.
 * Prints each round's server CPU per request and the median of the rounds' ratios (base / this
 * build: 1 is no change, below 1 this build spends more per request), for each scenario.
 *
 * Prepare the base, e.g.:
 *   git worktree add /tmp/petstore-base e0c65ef && cd /tmp/petstore-base && npm ci && npm run build
 * Run with `BENCH_BASE_DIR=/tmp/petstore-base npm run bench:builds`. Environment: BENCH_BASE_DIR
 * (required), PAIR_ROUNDS (10), PAIR_SECONDS (3), PAIR_SCENARIOS (list,limited).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { positiveFromEnv } from './http/env.js';
import { describePairRound, PAIR_DEFAULTS, summarisePair, type PairNames } from './http/operations-cost.js';
import { measurePaired } from './http/paired.js';
import { scenarios, type ScenarioId } from './http/scenarios.js';
import { serverSpecs, type ServerSpec } from './http/servers.js';

const baseDirSetting = process.env['BENCH_BASE_DIR'];
if (baseDirSetting === undefined || baseDirSetting === '') throw new Error('BENCH_BASE_DIR: the base build\'s checkout (built: npm ci && npm run build)');
const baseDir = resolve(baseDirSetting);

const settings = { ...PAIR_DEFAULTS, rounds: positiveFromEnv('PAIR_ROUNDS', PAIR_DEFAULTS.rounds), seconds: positiveFromEnv('PAIR_SECONDS', PAIR_DEFAULTS.seconds) };
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

const memory = serverSpecs(undefined).find((spec) => spec.name === 'memory');
if (memory === undefined) throw new Error('no memory server in the HTTP bench');
// The base runs its own compiled server script, which loads its own dist/src; same script name, same environment.
const baseScript = join(baseDir, 'dist', 'bench', 'servers', memory.script);
if (!existsSync(baseScript)) throw new Error(`BENCH_BASE_DIR: no ${baseScript}; build the base first (npm ci && npm run build)`);

const baseCommit = commitOf(baseDir);
const thisCommit = commitOf(process.cwd());
const pair: [ServerSpec, ServerSpec] = [
  { ...memory, label: `base build (${baseCommit}), memory store`, buildDir: baseDir },
  { ...memory, label: `this build (${thisCommit}), memory store` },
];
const names: PairNames = { first: 'base', second: 'this build', ratio: 'base / this build' };

console.log(`Base build ${baseCommit} (${baseDir}) against this build ${thisCommit}, memory store, loaded together, ${settings.connectionsEach} connections each, ${settings.rounds} rounds of ${settings.seconds} s`);
for (const scenario of chosen) {
  console.log(`\n${scenario.id}: ${scenario.title} (expected: ${scenario.expected})`);
  const rounds = await measurePaired(pair, scenario, settings, (round, result) => console.log(describePairRound(round, result, names)));
  console.log(summarisePair(rounds, names));
}
