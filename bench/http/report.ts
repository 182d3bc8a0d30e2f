import type { Measurement } from './load.js';
import { cpuRatiosOf, type PairedRound, type PairSettings } from './paired.js';
import type { CommandCounts } from './redis-stats.js';
import type { ScenarioId } from './scenarios.js';
import type { ServerName } from './servers.js';

/** One measured run; the Redis store's also carries the Redis calls it caused. */
export interface Round extends Measurement {
  /** CPU time of the server process per response: what a request costs it, whatever the load generator manages. */
  readonly serverCpuUsPerRequest?: number;
  /** PostgreSQL store: CPU of every `postgres` process of the machine per response (/proc, utime + stime). */
  readonly postgresCpuUsPerRequest?: number;
  /** Redis and PostgreSQL stores: CPU of every `redis-server` process of the machine per response. */
  readonly redisCpuUsPerRequest?: number;
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
  /** Medians, where measured in every round. */
  readonly postgresCpuUsPerRequest?: number;
  readonly redisCpuUsPerRequest?: number;
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
  /**
   * The same comparison by server CPU per request: the median over the rounds of the
   * reference's CPU per request over the server's in the same round. A shared machine
   * disturbs CPU per request far less than req/s, and a ratio taken within each round is not
   * moved by the machine getting slower or faster between rounds, as a ratio of medians is.
   */
  readonly byCpu: number | null;
  readonly threshold: number;
  /** Judged by CPU where both were measured, else by req/s. */
  readonly met: boolean;
  /**
   * Set where the target is judged from the two servers loaded at the same time (`byCpu` then
   * is the median of those rounds' ratios): the figure of the rounds measured one after the other.
   */
  readonly sequentialByCpu?: number | null;
  /** Judged by req/s even where CPU was measured: the stores compared spend CPU outside the service (PostgreSQL, Redis). */
  readonly judgedByRps?: true;
}

export interface BenchResults {
  readonly generatedAt: string;
  readonly command: string;
  readonly machine: Readonly<Record<string, string>>;
  readonly settings: { readonly connections: number; readonly rounds: number; readonly seconds: number; readonly warmUpSeconds: number };
  readonly notes: readonly string[];
  readonly scenarios: readonly ScenarioResult[];
  /** The list scenario's memory and operated servers loaded together (bench/http/paired.ts). */
  readonly operationsCost?: { readonly settings: PairSettings; readonly rounds: readonly PairedRound[] };
  readonly targets: readonly Target[];
}

/** The middle value; for an even count, the mean of the two middle ones. */
export const median = (values: readonly number[]): number => {
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
    const postgresCpu = rounds.flatMap((round) => (round.postgresCpuUsPerRequest === undefined ? [] : [round.postgresCpuUsPerRequest]));
    const redisCpu = rounds.flatMap((round) => (round.redisCpuUsPerRequest === undefined ? [] : [round.redisCpuUsPerRequest]));
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
        ...(postgresCpu.length === rounds.length && rounds.length > 0 ? { postgresCpuUsPerRequest: median(postgresCpu) } : {}),
        ...(redisCpu.length === rounds.length && rounds.length > 0 ? { redisCpuUsPerRequest: median(redisCpu) } : {}),
        vsCeiling: ratio(requestsPerSecond, 'ceiling'),
        vsPeer: ratio(requestsPerSecond, 'peer'),
        ...(redisCallsPerRequest === undefined ? {} : { redisCallsPerRequest }),
      },
    };
  });
};

/** The reference's CPU per request over the server's, round by round: null unless both were measured in every round. */
const cpuRatiosByRound = (measured: ServerResult, reference: ServerResult): number[] | null => {
  if (measured.rounds.length !== reference.rounds.length) return null;
  const ratios: number[] = [];
  for (const [i, round] of measured.rounds.entries()) {
    const cpu = round.serverCpuUsPerRequest;
    const referenceCpu = reference.rounds[i]?.serverCpuUsPerRequest;
    if (cpu === undefined || referenceCpu === undefined) return null;
    ratios.push(referenceCpu / cpu);
  }
  return ratios;
};

/**
 * The targets of the benchmark issue: req/s by medians of this run, CPU per request round by
 * round; the access log's, where `operatedTogether` holds its rounds, from the two servers
 * loaded at the same time (without / with, round by round).
 */
export const evaluateTargets = (scenarios: readonly ScenarioResult[], operatedTogether?: readonly PairedRound[]): Target[] => {
  const result = (scenario: ScenarioId, server: ServerName): ServerResult | undefined =>
    scenarios.find((s) => s.id === scenario)?.servers.find((s) => s.server === server);
  const targets: Target[] = [];
  /** `together`: the reference's and the server's rounds loaded at the same time, which then decide by CPU. */
  const add = (
    name: string,
    measured: ServerResult | undefined,
    reference: ServerResult | undefined,
    threshold: number,
    together?: readonly PairedRound[] | 'by req/s',
  ): void => {
    if (measured === undefined || reference === undefined) return;
    const value = measured.summary.requestsPerSecond / reference.summary.requestsPerSecond;
    const ratios = cpuRatiosByRound(measured, reference);
    const sequential = ratios === null ? null : median(ratios);
    if (together === 'by req/s') {
      targets.push({ name, value, byCpu: sequential, threshold, met: value >= threshold, judgedByRps: true });
      return;
    }
    if (together === undefined || together.length === 0) {
      targets.push({ name, value, byCpu: sequential, threshold, met: (sequential ?? value) >= threshold });
      return;
    }
    const byCpu = median(cpuRatiosOf(together));
    targets.push({ name: `${name}, both loaded together`, value, byCpu, threshold, met: byCpu >= threshold, sequentialByCpu: sequential });
  };
  add('GET list, memory store / ceiling', result('list', 'memory'), result('list', 'ceiling'), 0.6);
  add('GET list, memory store / fastify peer', result('list', 'memory'), result('list', 'peer'), 1.3);
  add('GET list, memory store / find-my-way + fixed window', result('list', 'memory'), result('list', 'router'), 1);
  add('429 path, memory store / ceiling', result('limited', 'memory'), result('limited', 'ceiling'), 0.8);
  add('429 path, memory store / find-my-way + fixed window', result('limited', 'memory'), result('limited', 'router'), 1);
  add('429 path / GET list success, memory store (a rejection never slower)', result('limited', 'memory'), result('list', 'memory'), 1);
  add('429 path / GET list success, Redis store (a rejection never slower)', result('limited', 'redis'), result('list', 'redis'), 1);
  add('GET list, Redis store / memory store', result('list', 'redis'), result('list', 'memory'), 0.5);
  add('GET list, access log + metrics on / off (memory store)', result('list', 'operated'), result('list', 'memory'), 0.9, operatedTogether);
  add('429 path, Redis store / memory store', result('limited', 'redis'), result('limited', 'memory'), 0.85);
  add('GET list, Redis Cluster (3 masters) / single Redis', result('list', 'cluster'), result('list', 'redis'), 0.8);
  add('429 path, Redis Cluster (3 masters) / single Redis', result('limited', 'cluster'), result('limited', 'redis'), 0.8);
  // By req/s: the service's CPU leaves out PostgreSQL's and Redis's, which differ between the two stores.
  add('GET list, PostgreSQL store / Redis store (by req/s)', result('list', 'postgres'), result('list', 'redis'), 0.8, 'by req/s');
  add('POST create, PostgreSQL store / Redis store (by req/s)', result('create', 'postgres'), result('create', 'redis'), 0.5, 'by req/s');
  add('place + cancel order, PostgreSQL store / Redis store (by req/s)', result('order', 'postgres'), result('order', 'redis'), 0.5, 'by req/s');
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
      ...(scenario.servers.some(({ summary }) => summary.postgresCpuUsPerRequest !== undefined)
        ? [{ head: 'PostgreSQL CPU µs/req', cell: (s: Summary) => fixed(s.postgresCpuUsPerRequest ?? null, 0) }]
        : []),
      ...(scenario.servers.some(({ summary }) => summary.redisCpuUsPerRequest !== undefined)
        ? [{ head: 'Redis CPU µs/req', cell: (s: Summary) => fixed(s.redisCpuUsPerRequest ?? null, 0) }]
        : []),
    ];
    lines.push(`| server | ${columns.map(({ head }) => head).join(' | ')} |`);
    lines.push(`|---|${columns.map(() => '---:').join('|')}|`);
    for (const { label, summary } of scenario.servers) {
      lines.push(`| ${label} | ${columns.map(({ cell }) => cell(summary)).join(' | ')} |`);
    }
    for (const { server, summary } of scenario.servers) {
      if (summary.redisCallsPerRequest === undefined) continue;
      const store = server === 'postgres' ? 'PostgreSQL store, its counters' : 'Redis store';
      lines.push('', `Redis calls per request (${store}): ${describeRedisCalls(summary.redisCallsPerRequest)}.`);
    }
    lines.push('');
  }
  lines.push('### Targets', '');
  if (results.targets.length === 0) {
    lines.push('None in this run: the scenarios they compare (`list`, `limited`) were not measured.');
    return lines.join('\n');
  }
  lines.push(
    'Judged by server CPU per request where measured (a shared machine disturbs it far less than req/s), else by req/s. ' +
      'By CPU: the median over the rounds of the two CPU figures of the same round, so the machine drifting between rounds moves both alike.',
    '',
  );
  lines.push('| target | by req/s | by CPU/req | needed | |', '|---|---:|---:|---:|---|');
  for (const target of results.targets) {
    lines.push(`| ${target.name} | ${target.value.toFixed(2)} | ${fixed(target.byCpu)} | ≥ ${target.threshold.toFixed(2)} | ${target.met ? 'met' : 'MISSED'} |`);
  }
  if (results.targets.some((target) => target.judgedByRps === true)) {
    lines.push(
      '',
      'The PostgreSQL / Redis store targets are judged by req/s: the service CPU per request (the by-CPU column) leaves out what ' +
        'PostgreSQL and Redis spend, which the two stores split differently (see the PostgreSQL and Redis CPU columns).',
    );
  }
  const cost = results.operationsCost;
  const together = results.targets.find((target) => target.sequentialByCpu !== undefined);
  if (cost !== undefined && together !== undefined) {
    const ratios = cpuRatiosOf(cost.rounds);
    lines.push(
      '',
      `The access log target compares two configurations of the same server, so it is judged from both loaded at the same time ` +
        `(${cost.settings.connectionsEach} connections each, ${cost.rounds.length} rounds of ${cost.settings.seconds} s): rounds ` +
        `${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}. Measured one after the other, as in the table above, ` +
        `its rounds gave ${fixed(together.sequentialByCpu ?? null)} (by req/s ${together.value.toFixed(2)}); the same server measured twice so moves by a third from round to round.`,
    );
  }
  return lines.join('\n');
};
