/**
 * What the access log and metrics cost a request, measured on two servers loaded at the same
 * time: this service with the memory store, without and with them (the `memory` and
 * `operated` servers of the HTTP bench), each by its own 25 connections over the same
 * seconds, so that whatever the machine does meanwhile slows both alike. Prints each round's
 * server CPU per request and the median of the rounds' ratios (without / with: ≥ 0.90 is the
 * target). Two processes of the same server measured so: rounds 0.95 to 1.02, medians 0.99.
 *
 * Run with `npm run bench:operated`. Environment: PAIR_ROUNDS (10), PAIR_SECONDS (3), PAIR_SCENARIO (list).
 */
import { positiveFromEnv } from './http/env.js';
import { runLoad, type Load } from './http/load.js';
import { median } from './http/report.js';
import { scenarios, type ScenarioId } from './http/scenarios.js';
import { serverSpecs, startServer, type RunningServer, type ServerName } from './http/servers.js';

const CONNECTIONS_EACH = 25;
const WARM_UP_SECONDS = 3;
const rounds = positiveFromEnv('PAIR_ROUNDS', 10);
const seconds = positiveFromEnv('PAIR_SECONDS', 3);
const scenarioId = (process.env['PAIR_SCENARIO'] ?? 'list') as ScenarioId;
const scenario = scenarios(2 * CONNECTIONS_EACH).find((candidate) => candidate.id === scenarioId);
if (scenario === undefined) throw new Error(`PAIR_SCENARIO: no scenario ${scenarioId}`);

const PAIR: readonly ServerName[] = ['memory', 'operated'];

const servers: { readonly server: RunningServer; readonly load: Load; readonly cpu: number[] }[] = [];
try {
  for (const spec of serverSpecs(undefined).filter(({ name }) => PAIR.includes(name))) {
    const server = await startServer(spec);
    servers.push({ server, load: await scenario.prepare(server.baseUrl, spec.name), cpu: [] });
  }
  await Promise.all(servers.map(({ server, load }) => runLoad(server.baseUrl, load, CONNECTIONS_EACH, WARM_UP_SECONDS)));
  console.log(`${scenario.title}: ${PAIR.join(' and ')} loaded together, ${CONNECTIONS_EACH} connections each, ${rounds} rounds of ${seconds} s`);
  for (let round = 1; round <= rounds; round++) {
    const before = servers.map(({ server }) => server.cpuSeconds());
    const measured = await Promise.all(servers.map(({ server, load }) => runLoad(server.baseUrl, load, CONNECTIONS_EACH, seconds)));
    const cells = servers.map(({ server, cpu }, i) => {
      const start = before[i];
      const end = server.cpuSeconds();
      const measurement = measured[i]!;
      if (start === undefined || end === undefined) throw new Error('server CPU time is read from /proc, which this machine lacks');
      if (measurement.errors > 0 || measurement.non2xxShare > 0) throw new Error(`${server.spec.label}: ${measurement.errors} errors, ${measurement.non2xxShare} non-2xx`);
      cpu.push(((end - start) * 1e6) / measurement.responses);
      return `${server.spec.name} ${cpu.at(-1)!.toFixed(1)} µs/req (${Math.round(measurement.requestsPerSecond)} req/s)`;
    });
    const [without, withThem] = servers.map(({ cpu }) => cpu.at(-1)!);
    console.log(`  round ${String(round).padStart(2)}: ${cells.join(', ')}, ratio ${(without! / withThem!).toFixed(3)}`);
  }
  const [without, withThem] = servers.map(({ cpu }) => cpu);
  const ratios = without!.map((cpu, i) => cpu / withThem![i]!);
  console.log(
    `access log + metrics on / off by CPU per request: median ${median(ratios).toFixed(3)} (rounds ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}); ` +
      `${median(withThem!).toFixed(1)} against ${median(without!).toFixed(1)} µs per request`,
  );
} finally {
  await Promise.all(servers.map(({ server }) => server.stop()));
}
