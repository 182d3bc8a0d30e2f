/**
 * Where a server's CPU goes on the `list` scenario: each server of the HTTP bench run under
 * V8's sampling profiler (`--cpu-prof`), loaded for BENCH_SECONDS after a warm-up, and the
 * samples of the loaded window only (by the monotonic clock the profile and this process
 * share) sorted into socket system calls, Node's core (HTTP parser and writer, streams,
 * timers), the garbage collector, the server's own code and each dependency. Printed per
 * request, so the servers compare: what is above Node's HTTP floor is what a server can cut.
 *
 * `npm run build && node dist/bench/profile.js`. Environment: BENCH_PROFILE_SERVERS
 * (`ceiling,peer,memory,redis`), BENCH_SECONDS (5), REDIS_URL. The profiler itself adds about
 * a third to JavaScript-heavy servers, so compare the columns, not the totals with the HTTP bench.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { positiveFromEnv } from './http/env.js';
import { runLoad } from './http/load.js';
import { connectRedis, deleteKeysUnder } from './http/redis-stats.js';
import { scenarios } from './http/scenarios.js';
import { serverSpecs, startServer, type ServerName } from './http/servers.js';

const CONNECTIONS = 50;
const seconds = positiveFromEnv('BENCH_SECONDS', 5);
const names = (process.env['BENCH_PROFILE_SERVERS'] ?? 'ceiling,peer,memory,redis').split(',') as ServerName[];
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';

interface CpuProfile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: { readonly functionName: string; readonly url: string } }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Native calls that are the socket's system calls: the kernel's share, loopback delivery included. */
const SOCKET_CALLS = new Set(['writev', 'writeUtf8String', 'writeBuffer', 'writeLatin1String', 'writeAsciiString', 'read', 'close', 'shutdown']);

const categoryOf = ({ functionName, url }: CpuProfile['nodes'][number]['callFrame']): string | undefined => {
  if (functionName === '(idle)') return undefined;
  if (SOCKET_CALLS.has(functionName)) return 'socket system calls';
  if (functionName === '(garbage collector)') return 'garbage collector';
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (dependency !== undefined) return dependency;
  if (url.includes('/dist/')) return 'the server’s own code';
  return 'Node core (HTTP, streams, timers) and natives';
};

/** Microseconds of CPU per category over the samples taken between `from` and `to` (monotonic µs). */
const categorise = (profile: CpuProfile, from: number, to: number): Map<string, number> => {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const spent = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((sample, i) => {
    at += profile.timeDeltas[i]!;
    if (at < from || at > to) return;
    const category = categoryOf(frames.get(sample)!);
    if (category !== undefined) spent.set(category, (spent.get(category) ?? 0) + profile.timeDeltas[i]!);
  });
  return spent;
};

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

const redis = await connectRedis(redisUrl);
const prefix = `petstore-bench:profile:${process.pid}:`;
const specs = serverSpecs(redis === undefined ? undefined : { url: redisUrl, prefix });
const list = scenarios(CONNECTIONS).find((scenario) => scenario.id === 'list')!;
console.log(`${list.title}; ${CONNECTIONS} connections, ${seconds} s profiled after 1 s of warm-up, node ${process.version}\n`);

const rows: { name: string; perRequest: Map<string, number>; requests: number }[] = [];
try {
  for (const name of names) {
    const spec = specs.find((candidate) => candidate.name === name);
    if (spec === undefined) throw new Error(`no server ${name} here (Redis servers need REDIS_URL)`);
    const directory = mkdtempSync(join(tmpdir(), `petstore-profile-${name}-`));
    process.env['BENCH_NODE_OPTIONS'] = `--cpu-prof --cpu-prof-dir=${directory}`;
    const server = await startServer(spec);
    try {
      const load = await list.prepare(server.baseUrl, name);
      await runLoad(server.baseUrl, load, CONNECTIONS, 1);
      const from = monotonicMicros();
      const measured = await runLoad(server.baseUrl, load, CONNECTIONS, seconds);
      const to = monotonicMicros();
      await server.stop();
      const file = readdirSync(directory).find((entry) => entry.endsWith('.cpuprofile'));
      if (file === undefined) throw new Error(`${name}: no profile written`);
      const profile = JSON.parse(readFileSync(join(directory, file), 'utf8')) as CpuProfile;
      const spent = categorise(profile, from, to);
      rows.push({ name: spec.label, requests: measured.responses, perRequest: new Map([...spent].map(([category, micros]) => [category, micros / measured.responses])) });
    } finally {
      await server.stop();
      rmSync(directory, { recursive: true, force: true });
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
