import { runLoad, type Load, type Measurement } from './load.js';
import type { PairSettings } from './paired.js';
import type { Scenario } from './scenarios.js';
import type { RunningServer } from './servers.js';

/** One round: each server's CPU per request and req/s over the same seconds, in the order of the servers. */
export interface TogetherRound {
  readonly cpuUsPerRequest: readonly number[];
  readonly requestsPerSecond: readonly number[];
  readonly responses: readonly number[];
  /** Of each server's responses: 0 unless the caller accepts some (`maxNon2xxShare`). */
  readonly non2xxShare: readonly number[];
  /** Each server's responses by status (autocannon's counts). */
  readonly statusCounts: readonly Readonly<Record<string, number>>[];
}

export interface TogetherHooks {
  /** The share of non-2xx answers a server may give in a round (e.g. a 503 of a store that could not keep up) before the run stops: 0 unless given. */
  readonly maxNon2xxShare?: number;
  /** After the warm-up, before the first round: e.g. a first reading of what the servers' stores did. */
  readonly afterWarmUp?: () => Promise<void>;
  readonly onRound?: (round: number, result: TogetherRound) => void;
  /** After the last round, the servers still running: e.g. what their stores kept. */
  readonly afterRounds?: () => Promise<void>;
}

/**
 * bench/http/paired.ts's method for any number of servers of one scenario (never refused here:
 * every answer must be a 2xx, or all but `maxNon2xxShare`): the servers, started and prepared by the caller, are loaded at the
 * same time, each by its own connections over the same seconds, so that whatever the machine
 * does meanwhile slows all alike; then their CPU per request is compared round by round. Loaded by
 * autocannon, as the pairs are.
 */
export const measureTogether = async (
  servers: readonly { readonly server: RunningServer; readonly load: Load }[],
  scenario: Scenario,
  settings: PairSettings,
  hooks: TogetherHooks = {},
): Promise<TogetherRound[]> => {
  if (scenario.refused === true) throw new Error(`${scenario.id}: a refused scenario is measured in pairs (bench/http/paired.ts)`);
  const run = (seconds: number): Promise<Measurement[]> =>
    Promise.all(servers.map(({ server, load }) => runLoad(server.baseUrl, load, settings.connectionsEach, seconds)));
  await run(settings.warmUpSeconds);
  await hooks.afterWarmUp?.();
  const rounds: TogetherRound[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const before = servers.map(({ server }) => server.cpuSeconds());
    const measured = await run(settings.seconds);
    const cpuUsPerRequest = servers.map(({ server }, i) => {
      const start = before[i];
      const end = server.cpuSeconds();
      const measurement = measured[i]!;
      if (start === undefined || end === undefined) throw new Error('server CPU time is read from /proc, which this machine lacks');
      const allowed = hooks.maxNon2xxShare ?? 0;
      if (measurement.errors > 0 || measurement.non2xxShare > allowed) {
        throw new Error(
          `${server.spec.label}: ${measurement.errors} errors, ${measurement.non2xxShare} non-2xx (at most ${allowed} accepted), ${JSON.stringify(measurement.statusCounts)}`,
        );
      }
      return ((end - start) * 1e6) / measurement.responses;
    });
    const result: TogetherRound = {
      cpuUsPerRequest,
      requestsPerSecond: measured.map((measurement) => measurement.requestsPerSecond),
      responses: measured.map((measurement) => measurement.responses),
      non2xxShare: measured.map((measurement) => measurement.non2xxShare),
      statusCounts: measured.map((measurement) => measurement.statusCounts),
    };
    rounds.push(result);
    hooks.onRound?.(round, result);
  }
  await hooks.afterRounds?.();
  return rounds;
};
