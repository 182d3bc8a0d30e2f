import { median } from './report.js';
import { cpuRatiosOf, type PairedRound, type PairSettings } from './paired.js';
import { serverSpecs, type ServerSpec } from './servers.js';

/** 10 rounds of 3 s: the median of ten per-round ratios moved by one to three points between runs of the same code. */
export const PAIR_DEFAULTS: PairSettings = { rounds: 10, seconds: 3, warmUpSeconds: 3, connectionsEach: 25 };

/** The service without and with the access log and metrics: the HTTP bench's `memory` and `operated` servers. */
export const operatedPair = (): [ServerSpec, ServerSpec] => {
  const specs = serverSpecs(undefined);
  const spec = (name: string): ServerSpec => {
    const found = specs.find((candidate) => candidate.name === name);
    if (found === undefined) throw new Error(`no server ${name}`);
    return found;
  };
  return [spec('memory'), spec('operated')];
};

export const describePairRound = (round: number, { cpuUsPerRequest: [without, withThem], requestsPerSecond: [rpsWithout, rpsWith] }: PairedRound): string =>
  `  round ${String(round).padStart(2)}: without ${without.toFixed(1)} µs/req (${Math.round(rpsWithout)} req/s), with ${withThem.toFixed(1)} µs/req (${Math.round(rpsWith)} req/s), ratio ${(without / withThem).toFixed(3)}`;

export const summarisePair = (rounds: readonly PairedRound[]): string => {
  const ratios = cpuRatiosOf(rounds);
  const cpu = (side: 0 | 1): number => median(rounds.map(({ cpuUsPerRequest }) => cpuUsPerRequest[side]));
  return (
    `access log + metrics on / off by CPU per request: median ${median(ratios).toFixed(3)} (rounds ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}); ` +
    `${cpu(1).toFixed(1)} against ${cpu(0).toFixed(1)} µs per request`
  );
};
