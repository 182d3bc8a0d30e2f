import { positiveFromEnv } from './env.js';
import { median } from './report.js';
import { cpuRatiosOf, type PairedRound, type PairSettings } from './paired.js';
import { serverSpecs, type ServerName, type ServerSpec } from './servers.js';

/** 10 rounds of 3 s: the median of ten per-round ratios moved by one to three points between runs of the same code. */
export const PAIR_DEFAULTS: PairSettings = { rounds: 10, seconds: 3, warmUpSeconds: 3, connectionsEach: 25 };

/** PAIR_DEFAULTS with PAIR_ROUNDS and PAIR_SECONDS from the environment; `connectionsEach` a bench's own, when it sets one. */
export const pairSettingsFromEnv = (connectionsEach = PAIR_DEFAULTS.connectionsEach): PairSettings => ({
  ...PAIR_DEFAULTS,
  rounds: positiveFromEnv('PAIR_ROUNDS', PAIR_DEFAULTS.rounds),
  seconds: positiveFromEnv('PAIR_SECONDS', PAIR_DEFAULTS.seconds),
  connectionsEach,
});

/** Two servers of the HTTP bench that need neither Redis nor PostgreSQL, to be loaded together. */
export const serverPair = (first: ServerName, second: ServerName): [ServerSpec, ServerSpec] => {
  const specs = serverSpecs(undefined);
  const spec = (name: ServerName): ServerSpec => {
    const found = specs.find((candidate) => candidate.name === name);
    if (found === undefined) throw new Error(`no server ${name} without Redis and PostgreSQL`);
    return found;
  };
  return [spec(first), spec(second)];
};

/** The service without and with the access log and metrics: the HTTP bench's `memory` and `operated` servers. */
export const operatedPair = (): [ServerSpec, ServerSpec] => serverPair('memory', 'operated');

/** What a pair's two servers are called in its report, and what their CPU ratio (first / second) says. */
export interface PairNames {
  readonly first: string;
  readonly second: string;
  readonly ratio: string;
}

const OPERATED_NAMES: PairNames = { first: 'without', second: 'with', ratio: 'access log + metrics on / off' };

export const describePairRound = (
  round: number,
  { cpuUsPerRequest: [first, second], requestsPerSecond: [rpsFirst, rpsSecond] }: PairedRound,
  names: PairNames = OPERATED_NAMES,
): string =>
  `  round ${String(round).padStart(2)}: ${names.first} ${first.toFixed(1)} µs/req (${Math.round(rpsFirst)} req/s), ${names.second} ${second.toFixed(1)} µs/req (${Math.round(rpsSecond)} req/s), ratio ${(first / second).toFixed(3)}`;

export const summarisePair = (rounds: readonly PairedRound[], names: PairNames = OPERATED_NAMES): string => {
  const ratios = cpuRatiosOf(rounds);
  const cpu = (side: 0 | 1): number => median(rounds.map(({ cpuUsPerRequest }) => cpuUsPerRequest[side]));
  return (
    `${names.ratio} by CPU per request: median ${median(ratios).toFixed(3)} (rounds ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}); ` +
    `${cpu(1).toFixed(1)} against ${cpu(0).toFixed(1)} µs per request`
  );
};
