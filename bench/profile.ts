/**
 * Where a server's CPU goes on one scenario (`list` by default): each server of the HTTP bench run under
 * V8's sampling profiler (`--cpu-prof`), loaded for BENCH_SECONDS after a warm-up, and the
 * samples of the loaded window only (by the monotonic clock the profile and this process
 * share) sorted into socket system calls, Node's core (HTTP parser and writer, streams,
 * timers), the garbage collector, the server's own code and each dependency. Printed per
 * request, so the servers compare: what is above Node's HTTP floor is what a server can cut.
 *
 * `npm run build && node dist/bench/profile.js`. Environment: BENCH_PROFILE_SERVERS
 * (`ceiling,peer,memory,redis`; also `router`, `cluster`, `postgres`), BENCH_PROFILE_SCENARIO (`list`, or `limited` for the 429 path),
 * BENCH_PROFILE_DIR (keeps the .cpuprofile files there, for DevTools), BENCH_SECONDS (5),
 * REDIS_URL. The profiler itself adds about a third to JavaScript-heavy servers, so compare the
 * columns, not the totals with the HTTP bench. After the table, the functions of the servers'
 * own code that spend the most, by self time: where to cut.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { positiveFromEnv } from './http/env.js';
import { runLoad } from './http/load.js';
import { connectRedis, deleteKeysUnder } from './http/redis-stats.js';
import { scenarios, type ScenarioId } from './http/scenarios.js';
import { serverSpecs, startServer, type ServerName } from './http/servers.js';

const CONNECTIONS = 50;
const seconds = positiveFromEnv('BENCH_SECONDS', 5);
const names = (process.env['BENCH_PROFILE_SERVERS'] ?? 'ceiling,peer,memory,redis').split(',') as ServerName[];
const scenarioId = (process.env['BENCH_PROFILE_SCENARIO'] ?? 'list') as ScenarioId;
const keptDirectory = process.env['BENCH_PROFILE_DIR'];
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
/** Functions of a server's own code listed after the table, per server. */
const OWN_FUNCTIONS_SHOWN = 12;

interface CpuProfile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number } }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Native calls that are the socket's system calls: the kernel's share, loopback delivery included. */
const SOCKET_CALLS = new Set(['writev', 'writeUtf8String', 'writeBuffer', 'writeLatin1String', 'writeAsciiString', 'read', 'close', 'shutdown']);

type CallFrame = CpuProfile['nodes'][number]['callFrame'];

const OWN_CODE = 'the server’s own code';

const categoryOf = ({ functionName, url }: CallFrame): string | undefined => {
  if (functionName === '(idle)') return undefined;
  if (SOCKET_CALLS.has(functionName)) return 'socket system calls';
  if (functionName === '(garbage collector)') return 'garbage collector';
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (dependency !== undefined) return dependency;
  if (url.includes('/dist/')) return OWN_CODE;
  return 'Node core (HTTP, streams, timers) and natives';
};

/** `name (file:line)` of a frame of the server's own code, its path from dist/ on. */
const functionOf = ({ functionName, url, lineNumber }: CallFrame): string =>
  `${functionName || '(anonymous)'} (${url.slice(url.indexOf('/dist/') + 6)}:${lineNumber + 1})`;

/**
 * Microseconds of CPU per category over the samples taken between `from` and `to` (monotonic
 * µs), and per function of the server's own code.
 */
const categorise = (profile: CpuProfile, from: number, to: number): { spent: Map<string, number>; own: Map<string, number> } => {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const spent = new Map<string, number>();
  const own = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((sample, i) => {
    at += profile.timeDeltas[i]!;
    if (at < from || at > to) return;
    const node = nodes.get(sample)!;
    const category = categoryOf(node.callFrame);
    if (category === undefined) return;
    const micros = profile.timeDeltas[i]!;
    spent.set(category, (spent.get(category) ?? 0) + micros);
    if (category === OWN_CODE) {
      const name = functionOf(node.callFrame);
      own.set(name, (own.get(name) ?? 0) + micros);
    }
  });
  return { spent, own };
};

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

const redis = await connectRedis(redisUrl);
const prefix = `petstore-bench:profile:${process.pid}:`;
const specs = serverSpecs(redis === undefined ? undefined : { url: redisUrl, prefix }, names.includes('postgres'));
const scenario = scenarios(CONNECTIONS).find((candidate) => candidate.id === scenarioId);
if (scenario === undefined) throw new Error(`BENCH_PROFILE_SCENARIO: no scenario ${scenarioId}`);
console.log(`${scenario.title}; ${CONNECTIONS} connections, ${seconds} s profiled after 1 s of warm-up, node ${process.version}\n`);

if (keptDirectory !== undefined) mkdirSync(keptDirectory, { recursive: true });
const rows: { name: string; perRequest: Map<string, number>; ownPerRequest: Map<string, number>; requests: number }[] = [];
try {
  for (const name of names) {
    const spec = specs.find((candidate) => candidate.name === name);
    if (spec === undefined) throw new Error(`no server ${name} here (Redis servers need REDIS_URL)`);
    const directory = keptDirectory ?? mkdtempSync(join(tmpdir(), `petstore-profile-${name}-`));
    const before = new Set(keptDirectory === undefined ? [] : readdirSync(directory));
    process.env['BENCH_NODE_OPTIONS'] = `--cpu-prof --cpu-prof-dir=${directory}`;
    const server = await startServer(spec);
    try {
      const load = await scenario.prepare(server.baseUrl, name);
      await runLoad(server.baseUrl, load, CONNECTIONS, 1);
      const from = monotonicMicros();
      const measured = await runLoad(server.baseUrl, load, CONNECTIONS, seconds);
      const to = monotonicMicros();
      await server.stop();
      const file = readdirSync(directory).find((entry) => entry.endsWith('.cpuprofile') && !before.has(entry));
      if (file === undefined) throw new Error(`${name}: no profile written`);
      const profile = JSON.parse(readFileSync(join(directory, file), 'utf8')) as CpuProfile;
      const { spent, own } = categorise(profile, from, to);
      const perRequest = (micros: Map<string, number>): Map<string, number> => new Map([...micros].map(([key, value]) => [key, value / measured.responses]));
      rows.push({ name: spec.label, requests: measured.responses, perRequest: perRequest(spent), ownPerRequest: perRequest(own) });
    } finally {
      await server.stop();
      if (keptDirectory === undefined) rmSync(directory, { recursive: true, force: true });
    }
  }
} finally {
  if (redis !== undefined) {
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  }
}

const categories = [...new Set(rows.flatMap((row) => [...row.perRequest.keys()]))];
const total = (row: (typeof rows)[number]): number => [...row.perRequest.values()].reduce((sum, value) => sum + value, 0);
// Categories every server spends on first, then the rest by what the last server spends.
categories.sort((a, b) => (rows.at(-1)!.perRequest.get(b) ?? 0) - (rows.at(-1)!.perRequest.get(a) ?? 0));
console.log(`| CPU µs per request | ${rows.map((row) => row.name).join(' | ')} |`);
console.log(`|---|${rows.map(() => '---:').join('|')}|`);
for (const category of categories) {
  const cells = rows.map((row) => row.perRequest.get(category));
  if (cells.every((cell) => cell === undefined || cell < 0.05)) continue;
  console.log(`| ${category} | ${cells.map((cell) => (cell === undefined ? '–' : cell.toFixed(1))).join(' | ')} |`);
}
console.log(`| **total** | ${rows.map((row) => `**${total(row).toFixed(1)}**`).join(' | ')} |`);
console.log(`| requests profiled | ${rows.map((row) => row.requests.toLocaleString('en-US')).join(' | ')} |`);

for (const row of rows) {
  const top = [...row.ownPerRequest].sort((a, b) => b[1] - a[1]).slice(0, OWN_FUNCTIONS_SHOWN);
  if (top.length === 0) continue;
  console.log(`\n${row.name}, its own code by function (self µs per request):`);
  for (const [name, micros] of top) console.log(`  ${micros.toFixed(2).padStart(6)}  ${name}`);
}
