import { runLoad, type Load, type Measurement } from './load.js';
import type { Scenario } from './scenarios.js';
import { startServer, type RunningServer, type ServerSpec } from './servers.js';

/** The share of refusals a refused scenario's round must show. */
const MOSTLY_REFUSED = 0.99;

export interface PairSettings {
  readonly rounds: number;
  readonly seconds: number;
  readonly warmUpSeconds: number;
  /** Each server's own connections. */
  readonly connectionsEach: number;
}

/** One round: each server's CPU per request and req/s over the same seconds. */
export interface PairedRound {
  readonly cpuUsPerRequest: readonly [number, number];
  readonly requestsPerSecond: readonly [number, number];
}

/** The first server's CPU per request over the second's, round by round. */
export const cpuRatiosOf = (rounds: readonly PairedRound[]): number[] => rounds.map(({ cpuUsPerRequest: [first, second] }) => first / second);

/**
 * Two servers loaded at the same time, each by its own connections over the same seconds, so
 * that whatever the machine does meanwhile slows both alike: the ratio of two configurations of
 * one server, which measured one after the other moves by a third from round to round on this
 * machine (the same server twice: rounds 0.75 to 1.34), and measured so by a few percent
 * (rounds 0.95 to 1.02, medians 0.99). Loaded by autocannon, whatever BENCH_LOAD says: the
 * method was checked with it, and the one full run that loaded pairs with wrk (2026-11-26
 * 11:56) spread their rounds twice as wide (list / ceiling 0.43 to 1.02 against 0.69 to 0.77).
 */
export const measurePaired = async (
  specs: readonly [ServerSpec, ServerSpec],
  scenario: Scenario,
  settings: PairSettings,
  onRound: (round: number, result: PairedRound) => void,
): Promise<PairedRound[]> => {
  const servers: { readonly server: RunningServer; readonly load: Load }[] = [];
  try {
    for (const spec of specs) {
      const server = await startServer(spec);
      servers.push({ server, load: await scenario.prepare(server.baseUrl, spec.name) });
    }
    const run = (seconds: number): Promise<Measurement[]> =>
      Promise.all(servers.map(({ server, load }) => runLoad(server.baseUrl, load, settings.connectionsEach, seconds)));
    await run(settings.warmUpSeconds);
    const rounds: PairedRound[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      const before = servers.map(({ server }) => server.cpuSeconds());
      const measured = await run(settings.seconds);
      const cpu = servers.map(({ server }, i) => {
        const start = before[i];
        const end = server.cpuSeconds();
        const measurement = measured[i]!;
        if (start === undefined || end === undefined) throw new Error('server CPU time is read from /proc, which this machine lacks');
        // Refused: all but the few a fixed window admits again when its minute turns (the hand-written reference's 60).
        const refused = scenario.refused === true && server.spec.answersAll200 !== true;
        const answeredAsExpected = refused ? measurement.non2xxShare >= MOSTLY_REFUSED : measurement.non2xxShare === 0;
        if (measurement.errors > 0 || !answeredAsExpected) {
          throw new Error(`${server.spec.label}: ${measurement.errors} errors, ${measurement.non2xxShare} non-2xx (${refused ? `at least ${MOSTLY_REFUSED}` : 0} expected)`);
        }
        return ((end - start) * 1e6) / measurement.responses;
      });
      const result: PairedRound = {
        cpuUsPerRequest: [cpu[0]!, cpu[1]!],
        requestsPerSecond: [measured[0]!.requestsPerSecond, measured[1]!.requestsPerSecond],
      };
      rounds.push(result);
      onRound(round, result);
    }
    return rounds;
  } finally {
    await Promise.all(servers.map(({ server }) => server.stop()));
  }
};
