/**
 * HTTP benchmark: this service (memory and Redis stores) beside a fastify peer and a plain
 * node:http ceiling, each its own process on 127.0.0.1, loaded by Debian's wrk (a process of its
 * own, bench/http/wrk.ts) where a scenario sends one fixed request, else by autocannon from here.
 * Rounds are interleaved (ceiling, peer, memory, Redis; again...) so that drift of the machine
 * hits every server alike; each measurement follows a warm-up of its own.
 *
 * Run with `npm run bench` (which builds first). Environment: BENCH_ROUNDS (5), BENCH_SECONDS (5),
 * BENCH_WARMUP_SECONDS (2), BENCH_SCENARIOS (e.g. `list,limited`), REDIS_URL
 * (redis://127.0.0.1:6379; without a Redis the Redis store is skipped), BENCH_NODE_OPTIONS
 * (node flags for the servers, e.g. `--cpu-prof`), BENCH_SERVERS (e.g. `memory,redis,postgres`:
 * only these servers), BENCH_LOAD (`wrk` or `autocannon`: the load generator; unset, wrk for a
 * load of one fixed request when `wrk` is on PATH, else autocannon; a load of per-connection steps
 * or keys is autocannon's either way; the report names each scenario's generator and its CPU per
 * request). The PostgreSQL store runs on a database of its own per scenario, created
 * and dropped with psql on 127.0.0.1:5432 as user postgres (skipped, and said so, without it).
 * Writes bench/results/latest.json and latest.svg and refreshes the tables of bench/README.md;
 * a run limited by BENCH_SERVERS writes bench/results/servers-<names>.json instead and leaves
 * those alone, so that a partial run does not replace the full one.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { fileURLToPath } from 'node:url';
import { renderChart } from './http/chart.js';
import { positiveFromEnv } from './http/env.js';
import { generatorChoiceFromEnv, runLoadWith } from './http/generator.js';
import type { Load, LoadGenerator, RepeatedLoad } from './http/load.js';
import { commandCounts, connectRedis, deleteKeysUnder, callsBetween, redisVersion } from './http/redis-stats.js';
import { cpuBetween, postgresSetting, postgresVersion, processCpu } from './http/postgres.js';
import { describePairRound, PAIR_DEFAULTS, serverPair, summarisePair } from './http/operations-cost.js';
import { measurePaired } from './http/paired.js';
import { evaluateTargets, markdownReport, summarise, TARGETS, withHeadline, type BenchResults, type PairedMeasurement, type Round, type ScenarioResult } from './http/report.js';
import { scenarios } from './http/scenarios.js';
import { serverSpecs, startServer, type RunningServer, type ServerName } from './http/servers.js';

const CONNECTIONS = 50;
const settings = {
  connections: CONNECTIONS,
  rounds: positiveFromEnv('BENCH_ROUNDS', 5),
  seconds: positiveFromEnv('BENCH_SECONDS', 5),
  warmUpSeconds: positiveFromEnv('BENCH_WARMUP_SECONDS', 2),
};
const only = process.env['BENCH_SCENARIOS']?.split(',');
const onlyServers = process.env['BENCH_SERVERS']?.split(',') as ServerName[] | undefined;
const serverWanted = (name: ServerName): boolean => onlyServers === undefined || onlyServers.includes(name);
const generatorOf = generatorChoiceFromEnv();

const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url));
const README = fileURLToPath(new URL('../../bench/README.md', import.meta.url));
const FRONT_README = fileURLToPath(new URL('../../README.md', import.meta.url));
const RESULTS_START = '<!-- results:start -->';
const RESULTS_END = '<!-- results:end -->';

const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const redis = await connectRedis(redisUrl);
const runPrefix = `petstore-bench:${randomBytes(4).toString('hex')}:`;
const notes: string[] = [];
if (redis === undefined) notes.push(`No Redis answered at ${redisUrl}: the Redis store was not measured.`);
else notes.push('Redis calls per request come from INFO commandstats deltas: other clients of the same Redis during a round would be counted too.');
const pgVersion = redis !== undefined && serverWanted('postgres') ? await postgresVersion() : undefined;
const synchronousCommit = pgVersion === undefined ? undefined : await postgresSetting('synchronous_commit');
if (serverWanted('postgres')) {
  if (redis === undefined) notes.push('The PostgreSQL store keeps its counters in Redis: without Redis it was not measured.');
  else if (pgVersion === undefined) notes.push('No PostgreSQL answered psql on 127.0.0.1:5432 (user postgres): the PostgreSQL store was not measured.');
  else
    notes.push(
      `PostgreSQL ${pgVersion}, synchronous_commit=${synchronousCommit}, fsync=${await postgresSetting('fsync')}, ` +
        `shared_buffers=${await postgresSetting('shared_buffers')}; the service's pool is PETSTORE_PG_POOL (default 10). ` +
        'PostgreSQL and Redis CPU per request: utime + stime of every postgres / redis-server process of the machine (/proc) over the measurement; ' +
        'another client of either server during a round would be counted too.',
    );
}

const format = (rps: number): string => Math.round(rps).toLocaleString('en-US').padStart(7);

/** What one request of `load` is answered with, e.g. `429 api_key_banned`. */
const probe = async (baseUrl: string, load: RepeatedLoad): Promise<string> => {
  const response = await fetch(baseUrl + load.path, {
    method: load.method,
    headers: load.headers,
    ...(load.body === undefined ? {} : { body: load.body }),
  });
  const body: unknown = await response.json().catch(() => undefined);
  const code = typeof body === 'object' && body !== null && 'code' in body ? ` ${String(body.code)}` : '';
  return `${response.status}${code}`;
};

const measured: ScenarioResult[] = [];
console.log(
  `HTTP bench: ${settings.rounds} interleaved rounds of ${settings.seconds} s (after ${settings.warmUpSeconds} s of warm-up each), ` +
    `${CONNECTIONS} connections, node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
);
for (const scenario of scenarios(CONNECTIONS).filter((s) => only === undefined || only.includes(s.id))) {
  console.log(`\n${scenario.title}`);
  const prefix = `${runPrefix}${scenario.id}:`;
  const servers: RunningServer[] = [];
  const loads = new Map<RunningServer, Load>();
  const generators = new Map<RunningServer, LoadGenerator>();
  const rounds = new Map<RunningServer, Round[]>();
  const settle = async (server: RunningServer): Promise<void> => scenario.settle?.(server.baseUrl, server.spec.name);
  try {
    const specs = serverSpecs(redis === undefined ? undefined : { url: redisUrl, prefix }, pgVersion !== undefined);
    const measured = specs.filter(
      ({ name, scenarios }) =>
        serverWanted(name) &&
        (scenario.servers === undefined || scenario.servers.includes(name)) &&
        (scenarios === undefined || scenarios.includes(scenario.id)),
    );
    for (const spec of measured) {
      servers.push(await startServer(spec));
    }
    const answers = new Map<RunningServer, string>();
    for (const server of servers) {
      const load = await scenario.prepare(server.baseUrl, server.spec.name);
      loads.set(server, load);
      generators.set(server, generatorOf(load));
      // Only a load of one repeated request can be probed without upsetting what it measures.
      if (load.stepsOf === undefined && load.authorizationsOf === undefined) answers.set(server, await probe(server.baseUrl, load));
      rounds.set(server, []);
    }
    const used = [...new Set(generators.values())];
    console.log(`  load generator: ${used.length === 1 ? used[0] : servers.map((server) => `${server.spec.name} ${generators.get(server)}`).join(', ')}`);
    if (scenario.id === 'limited') {
      console.log(`  answers: ${servers.map((server) => `${server.spec.name} ${answers.get(server)}`).join(', ')}`);
    }
    for (let round = 1; round <= settings.rounds; round++) {
      for (const server of servers) {
        const load = loads.get(server)!;
        const generator = generators.get(server)!;
        await runLoadWith(generator, server.baseUrl, load, CONNECTIONS, settings.warmUpSeconds);
        await settle(server);
        const isRedis = redis !== undefined && (server.spec.name === 'redis' || server.spec.name === 'postgres');
        const isPostgres = server.spec.name === 'postgres';
        const before = isRedis ? await commandCounts(redis) : undefined;
        const redisCpuBefore = isRedis ? processCpu('redis-server') : undefined;
        const postgresCpuBefore = isPostgres ? processCpu('postgres') : undefined;
        const cpuBefore = server.cpuSeconds();
        const measurement = await runLoadWith(generator, server.baseUrl, load, CONNECTIONS, settings.seconds);
        const cpuAfter = server.cpuSeconds();
        const postgresCpu = isPostgres ? cpuBetween(postgresCpuBefore, processCpu('postgres')) : undefined;
        const redisCpu = isRedis ? cpuBetween(redisCpuBefore, processCpu('redis-server')) : undefined;
        const after = isRedis ? await commandCounts(redis) : undefined;
        await settle(server);
        const redisCalls = before !== undefined && after !== undefined ? callsBetween(before, after) : undefined;
        const serverCpuUsPerRequest =
          cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1e6) / measurement.responses;
        const perRequest = (seconds: number | undefined): number | undefined => (seconds === undefined ? undefined : (seconds * 1e6) / measurement.responses);
        const postgresCpuUsPerRequest = perRequest(postgresCpu);
        const redisCpuUsPerRequest = perRequest(redisCpu);
        rounds.get(server)!.push({
          ...measurement,
          ...(serverCpuUsPerRequest === undefined ? {} : { serverCpuUsPerRequest }),
          ...(postgresCpuUsPerRequest === undefined ? {} : { postgresCpuUsPerRequest }),
          ...(redisCpuUsPerRequest === undefined ? {} : { redisCpuUsPerRequest }),
          ...(redisCalls === undefined ? {} : { redisCalls }),
        });
        const trouble = measurement.errors > 0 ? `, ${measurement.errors} socket errors/timeouts` : '';
        const statuses = Object.entries(measurement.statusCounts);
        const mix = statuses.length > 1 ? ` (${statuses.map(([status, count]) => `${status} × ${count}`).join(', ')})` : '';
        console.log(
          `  round ${round} ${server.spec.name.padEnd(8)} ${format(measurement.requestsPerSecond)} req/s, ` +
            `p50 ${measurement.p50Ms.toFixed(2)} ms, p99 ${measurement.p99Ms.toFixed(2)} ms, non-2xx ${(100 * measurement.non2xxShare).toFixed(1)}%${mix}` +
            `${serverCpuUsPerRequest === undefined ? '' : `, server CPU ${serverCpuUsPerRequest.toFixed(0)} µs/req`}` +
            `${postgresCpuUsPerRequest === undefined ? '' : `, PostgreSQL CPU ${postgresCpuUsPerRequest.toFixed(0)} µs/req`}` +
            `${redisCpuUsPerRequest === undefined ? '' : `, Redis CPU ${redisCpuUsPerRequest.toFixed(0)} µs/req`}` +
            `${measurement.generatorCpuUsPerRequest === undefined ? '' : `, ${generator} CPU ${measurement.generatorCpuUsPerRequest.toFixed(1)} µs/req`}${trouble}`,
        );
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    if (redis !== undefined) await deleteKeysUnder(redis, prefix);
  }
  measured.push({
    id: scenario.id,
    title: scenario.title,
    expected: scenario.expected,
    ...(scenario.note === undefined ? {} : { note: scenario.note }),
    servers: summarise(servers.map((server) => ({ server: server.spec.name, label: server.spec.label, rounds: rounds.get(server)! }))),
  });
}

// Targets against a server of nearly the same cost are judged from the two loaded at the same time.
const paired: PairedMeasurement[] = [];
for (const target of TARGETS.filter(({ judge }) => judge === 'paired')) {
  const servers = measured.find(({ id }) => id === target.scenario)?.servers ?? [];
  const scenario = scenarios(2 * PAIR_DEFAULTS.connectionsEach).find(({ id }) => id === target.scenario);
  if (scenario === undefined || ![target.reference, target.measured].every((name) => servers.some(({ server }) => server === name))) continue;
  const names = { first: target.reference, second: target.measured, ratio: target.name };
  console.log(`\n${target.name}: ${target.reference} and ${target.measured} loaded together, ${PAIR_DEFAULTS.connectionsEach} connections each`);
  try {
    // By autocannon, whatever BENCH_LOAD says (paired.ts says why).
    const rounds = await measurePaired(
      serverPair(target.reference, target.measured),
      scenario,
      PAIR_DEFAULTS,
      (round, result) => console.log(describePairRound(round, result, names)),
    );
    console.log(summarisePair(rounds, names));
    paired.push({ target: target.name, settings: PAIR_DEFAULTS, rounds });
  } catch (error) {
    // The scenarios' results stand: this target is then judged from them, and the note says why.
    notes.push(`${target.name}: not measured loaded together (${error instanceof Error ? error.message : String(error)}).`);
    console.log(`  failed: ${String(error)}`);
  }
}

const results: BenchResults = {
  generatedAt: new Date().toISOString(),
  command:
    onlyServers === undefined
      ? `${process.env['BENCH_LOAD'] === undefined ? '' : `BENCH_LOAD=${process.env['BENCH_LOAD']} `}npm run bench`
      : ['BENCH_SERVERS', 'BENCH_SCENARIOS', 'BENCH_LOAD', 'BENCH_ROUNDS', 'BENCH_SECONDS', 'BENCH_WARMUP_SECONDS']
          .filter((name) => process.env[name] !== undefined)
          .map((name) => `${name}=${process.env[name]}`)
          .concat('node dist/bench/http-bench.js')
          .join(' '),
  machine: {
    cpu: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
    os: `${type()} ${release()}`,
    node: process.version,
    redis: redis === undefined ? 'not available' : await redisVersion(redis),
    postgres: pgVersion === undefined ? 'not measured' : `${pgVersion}, synchronous_commit=${synchronousCommit}`,
  },
  settings,
  notes,
  scenarios: measured,
  ...(paired.length === 0 ? {} : { paired }),
  targets: evaluateTargets(measured, paired),
};
redis?.disconnect();

mkdirSync(RESULTS_DIR, { recursive: true });
// A run of some servers only leaves the full run's results, chart and README tables alone.
const partial = onlyServers !== undefined;
const resultsFile = partial ? `${RESULTS_DIR}servers-${onlyServers.join('-')}.json` : `${RESULTS_DIR}latest.json`;
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
// The chart is drawn from the file, so it can be redrawn from any stored results.
const stored = JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults;
if (!partial) writeFileSync(`${RESULTS_DIR}latest.svg`, renderChart(stored));

const report = markdownReport(stored);
if (!partial && existsSync(README)) {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(RESULTS_START);
  const end = readme.indexOf(RESULTS_END);
  if (start !== -1 && end > start) {
    const intro = `Latest run: ${stored.generatedAt.slice(0, 16).replace('T', ' ')} UTC, ${stored.machine['cpu']}, node ${stored.machine['node']}, Redis ${stored.machine['redis']}.`;
    writeFileSync(README, `${readme.slice(0, start + RESULTS_START.length)}\n${intro}\n\n${report}\n${readme.slice(end)}`);
  }
}
if (!partial && existsSync(FRONT_README)) writeFileSync(FRONT_README, withHeadline(readFileSync(FRONT_README, 'utf8'), stored));
console.log(`\n${report}\n\n${notes.join('\n')}\nWrote ${resultsFile}${partial ? '' : ' and latest.svg'}.`);
