import type { Measurement } from './load.js';
import type { CommandCounts } from './redis-stats.js';
import type { ScenarioId } from './scenarios.js';
import type { ServerName } from './servers.js';

/** One measured run; the Redis store's also carries the Redis calls it caused. */
export interface Round extends Measurement {
  /** CPU time of the server process per response: what a request costs it, whatever the load generator manages. */
  readonly serverCpuUsPerRequest?: number;
  readonly redisCalls?: CommandCounts;
}

export interface Summary {
  /** Medians over the rounds; req/s also with its min and max. */
  readonly requestsPerSecond: number;
  readonly minRequestsPerSecond: number;
  readonly maxRequestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xxShare: number;
  readonly serverCpuUsPerRequest: number | null;
  /** Median req/s over the ceiling's, and over the peer's, in the same scenario of the same run. */
  readonly vsCeiling: number | null;
  readonly vsPeer: number | null;
  /** Redis store only: calls per request over all rounds, commands run inside scripts included. */
  readonly redisCallsPerRequest?: CommandCounts;
}

export interface ServerResult {
  readonly server: ServerName;
  readonly label: string;
  readonly rounds: readonly Round[];
  readonly summary: Summary;
}

export interface ScenarioResult {
  readonly id: ScenarioId;
  readonly title: string;
  readonly expected: string;
  /** E.g. why a server is not measured in this scenario. */
  readonly note?: string;
  /** Those measured in this scenario: the fastify peer is missing from one it cannot serve. */
  readonly servers: readonly ServerResult[];
}

export interface Target {
  readonly name: string;
  /** The ratio of req/s medians. */
  readonly value: number;
  /** The same ratio by server CPU per request (the reference's over the server's): what a shared machine disturbs least. */
  readonly byCpu: number | null;
  readonly threshold: number;
  /** Judged by CPU where both were measured, else by req/s. */
  readonly met: boolean;
}

export interface BenchResults {
  readonly generatedAt: string;
  readonly command: string;
  readonly machine: Readonly<Record<string, string>>;
  readonly settings: { readonly connections: number; readonly rounds: number; readonly seconds: number; readonly warmUpSeconds: number };
  readonly notes: readonly string[];
  readonly scenarios: readonly ScenarioResult[];
  readonly targets: readonly Target[];
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const callsPerRequest = (rounds: readonly Round[]): CommandCounts | undefined => {
  if (!rounds.some((round) => round.redisCalls !== undefined)) return undefined;
  const calls: Record<string, number> = {};
  let responses = 0;
  for (const round of rounds) {
    responses += round.responses;
    for (const [command, count] of Object.entries(round.redisCalls ?? {})) calls[command] = (calls[command] ?? 0) + count;
  }
  return Object.fromEntries(Object.entries(calls).map(([command, count]) => [command, count / responses]));
};

/** Summaries of every server of one scenario, with ratios to the ceiling and the peer measured beside them. */
export const summarise = (
  runs: readonly { readonly server: ServerName; readonly label: string; readonly rounds: readonly Round[] }[],
): ServerResult[] => {
  const medianRps = new Map(runs.map((run) => [run.server, median(run.rounds.map((round) => round.requestsPerSecond))]));
  const ratio = (value: number, to: ServerName): number | null => {
    const reference = medianRps.get(to);
    return reference === undefined ? null : value / reference;
  };
  return runs.map(({ server, label, rounds }) => {
    const rps = rounds.map((round) => round.requestsPerSecond);
    const requestsPerSecond = median(rps);
    const redisCallsPerRequest = callsPerRequest(rounds);
    const cpu = rounds.flatMap((round) => (round.serverCpuUsPerRequest === undefined ? [] : [round.serverCpuUsPerRequest]));
    return {
      server,
      label,
      rounds,
      summary: {
        requestsPerSecond,
        minRequestsPerSecond: Math.min(...rps),
        maxRequestsPerSecond: Math.max(...rps),
        p50Ms: median(rounds.map((round) => round.p50Ms)),
        p99Ms: median(rounds.map((round) => round.p99Ms)),
        non2xxShare: median(rounds.map((round) => round.non2xxShare)),
        serverCpuUsPerRequest: cpu.length === rounds.length ? median(cpu) : null,
        vsCeiling: ratio(requestsPerSecond, 'ceiling'),
        vsPeer: ratio(requestsPerSecond, 'peer'),
        ...(redisCallsPerRequest === undefined ? {} : { redisCallsPerRequest }),
      },
    };
  });
};

/** The targets of the benchmark issue, on medians of this run. */
export const evaluateTargets = (scenarios: readonly ScenarioResult[]): Target[] => {
  const summary = (scenario: ScenarioId, server: ServerName): Summary | undefined =>
    scenarios.find((s) => s.id === scenario)?.servers.find((s) => s.server === server)?.summary;
  const targets: Target[] = [];
  const add = (name: string, measured: Summary | undefined, reference: Summary | undefined, threshold: number): void => {
    if (measured === undefined || reference === undefined) return;
    const value = measured.requestsPerSecond / reference.requestsPerSecond;
    const cpu = measured.serverCpuUsPerRequest;
    const referenceCpu = reference.serverCpuUsPerRequest;
    const byCpu = cpu === null || referenceCpu === null ? null : referenceCpu / cpu;
    targets.push({ name, value, byCpu, threshold, met: (byCpu ?? value) >= threshold });
  };
  add('GET list, memory store / ceiling', summary('list', 'memory'), summary('list', 'ceiling'), 0.6);
  add('GET list, memory store / fastify peer', summary('list', 'memory'), summary('list', 'peer'), 1.3);
  add('GET list, memory store / find-my-way + fixed window', summary('list', 'memory'), summary('list', 'router'), 1);
  add('429 path, memory store / ceiling', summary('limited', 'memory'), summary('limited', 'ceiling'), 0.8);
  add('429 path / GET list success, memory store (a rejection never slower)', summary('limited', 'memory'), summary('list', 'memory'), 1);
  add('429 path / GET list success, Redis store (a rejection never slower)', summary('limited', 'redis'), summary('list', 'redis'), 1);
  add('GET list, Redis store / memory store', summary('list', 'redis'), summary('list', 'memory'), 0.5);
  add('GET list, access log + metrics on / off (memory store)', summary('list', 'operated'), summary('list', 'memory'), 0.9);
  add('429 path, Redis store / memory store', summary('limited', 'redis'), summary('limited', 'memory'), 0.85);
  add('GET list, Redis Cluster (3 masters) / single Redis', summary('list', 'cluster'), summary('list', 'redis'), 0.8);
  add('429 path, Redis Cluster (3 masters) / single Redis', summary('limited', 'cluster'), summary('limited', 'redis'), 0.8);
  return targets;
};

const integer = (value: number): string => Math.round(value).toLocaleString('en-US');
const fixed = (value: number | null, digits = 2): string => (value === null ? '–' : value.toFixed(digits));
const percent = (share: number): string => `${(100 * share).toFixed(share > 0 && share < 0.001 ? 3 : 1)}%`;

/** Calls the service sends; the others run inside its Lua scripts. */
const SENT = new Set(['evalsha', 'eval', 'hget']);

export const describeRedisCalls = (calls: CommandCounts): string => {
  const entries = Object.entries(calls).sort(([, a], [, b]) => b - a);
  const list = (sent: boolean): string =>
    entries
      .filter(([command]) => SENT.has(command) === sent)
      .map(([command, rate]) => `${command.toUpperCase()} ${rate.toFixed(2)}`)
      .join(', ') || 'none';
  return `sent ${list(true)}; inside scripts ${list(false)}`;
};

/** Markdown: one table per scenario, then the targets. A ratio column is left out where its reference was not measured. */
export const markdownReport = (results: BenchResults): string => {
  const lines: string[] = [];
  for (const scenario of results.scenarios) {
    lines.push(`### ${scenario.title}`, '', `Expected: ${scenario.expected}.`, '');
    if (scenario.note !== undefined) lines.push(scenario.note, '');
    const measured = (server: ServerName): boolean => scenario.servers.some((result) => result.server === server);
    const columns: { readonly head: string; readonly cell: (s: Summary) => string }[] = [
      { head: 'req/s median', cell: (s) => integer(s.requestsPerSecond) },
      { head: 'min – max', cell: (s) => `${integer(s.minRequestsPerSecond)} – ${integer(s.maxRequestsPerSecond)}` },
      ...(measured('ceiling') ? [{ head: '× ceiling', cell: (s: Summary) => fixed(s.vsCeiling) }] : []),
      ...(measured('peer') ? [{ head: '× peer', cell: (s: Summary) => fixed(s.vsPeer) }] : []),
      { head: 'p50 ms', cell: (s) => fixed(s.p50Ms) },
      { head: 'p99 ms', cell: (s) => fixed(s.p99Ms) },
      { head: 'non-2xx', cell: (s) => percent(s.non2xxShare) },
      { head: 'server CPU µs/req', cell: (s) => fixed(s.serverCpuUsPerRequest, 0) },
    ];
    lines.push(`| server | ${columns.map(({ head }) => head).join(' | ')} |`);
    lines.push(`|---|${columns.map(() => '---:').join('|')}|`);
    for (const { label, summary } of scenario.servers) {
      lines.push(`| ${label} | ${columns.map(({ cell }) => cell(summary)).join(' | ')} |`);
    }
    const redis = scenario.servers.find((server) => server.summary.redisCallsPerRequest !== undefined);
    if (redis?.summary.redisCallsPerRequest !== undefined) {
      lines.push('', `Redis calls per request (Redis store): ${describeRedisCalls(redis.summary.redisCallsPerRequest)}.`);
    }
    lines.push('');
  }
  lines.push('### Targets', '');
  if (results.targets.length === 0) {
    lines.push('None in this run: the scenarios they compare (`list`, `limited`) were not measured.');
    return lines.join('\n');
  }
  lines.push('Judged by server CPU per request where measured (a shared machine disturbs it far less than req/s), else by req/s.', '');
  lines.push('| target | by req/s | by CPU/req | needed | |', '|---|---:|---:|---:|---|');
  for (const target of results.targets) {
    lines.push(`| ${target.name} | ${target.value.toFixed(2)} | ${fixed(target.byCpu)} | ≥ ${target.threshold.toFixed(2)} | ${target.met ? 'met' : 'MISSED'} |`);
  }
  return lines.join('\n');
};
