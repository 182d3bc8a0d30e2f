import { runLoad, type Load, type LoadGenerator, type LoadRequest, type Measurement } from './load.js';
import { runWrk, wrkOnPath } from './wrk.js';

/** The load's one request when every connection sends that same request: what wrk can send; undefined for the others. */
export const fixedRequestOf = (load: Load): LoadRequest | undefined =>
  load.stepsOf === undefined && load.authorizationsOf === undefined ? load : undefined;

/**
 * Which generator loads what (BENCH_LOAD): `wrk` or `autocannon`. Unset: wrk for a load of one
 * fixed request when `wrk` is on PATH, else autocannon. `wrk`: the same, but a missing wrk stops
 * the bench. A load wrk cannot send (per-connection steps or keys) stays on autocannon either way.
 */
export type GeneratorChoice = (load: Load) => LoadGenerator;

export const generatorChoiceFromEnv = (value = process.env['BENCH_LOAD'], wrkAvailable = wrkOnPath): GeneratorChoice => {
  if (value === 'autocannon') return () => 'autocannon';
  if (value !== undefined && value !== '' && value !== 'wrk') throw new Error(`BENCH_LOAD must be wrk or autocannon, not ${value}`);
  const wrk = wrkAvailable();
  if (value === 'wrk' && !wrk) throw new Error('BENCH_LOAD=wrk, but no wrk on PATH (apt-get install wrk)');
  return (load) => (wrk && fixedRequestOf(load) !== undefined ? 'wrk' : 'autocannon');
};

/** One run of `load` by `generator`: same connections, same seconds, the same Measurement either way. */
export const runLoadWith = (generator: LoadGenerator, baseUrl: string, load: Load, connections: number, seconds: number): Promise<Measurement> => {
  if (generator === 'autocannon') return runLoad(baseUrl, load, connections, seconds);
  const request = fixedRequestOf(load);
  if (request === undefined) return Promise.reject(new Error('wrk sends one fixed request: this load needs autocannon'));
  return runWrk(baseUrl, request, connections, seconds);
};
