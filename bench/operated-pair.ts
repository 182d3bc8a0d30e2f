/**
 * What the access log and metrics cost a request, measured on two servers loaded at the same
 * time (bench/http/paired.ts): this service with the memory store, without and with them (the
 * `memory` and `operated` servers of the HTTP bench), each by its own 25 connections. Prints
 * each round's server CPU per request and the median of the rounds' ratios (without / with:
 * ≥ 0.90 is the target). `npm run bench` measures the same, as its access log target.
 *
 * Run with `npm run bench:operated`. Environment: PAIR_ROUNDS (10), PAIR_SECONDS (3), PAIR_SCENARIO (list).
 */
import { describePairRound, operatedPair, pairSettingsFromEnv, summarisePair } from './http/operations-cost.js';
import { scenarios, type ScenarioId } from './http/scenarios.js';
import { measurePaired } from './http/paired.js';

const settings = pairSettingsFromEnv();
const scenarioId = (process.env['PAIR_SCENARIO'] ?? 'list') as ScenarioId;
const scenario = scenarios(2 * settings.connectionsEach).find((candidate) => candidate.id === scenarioId);
if (scenario === undefined) throw new Error(`PAIR_SCENARIO: no scenario ${scenarioId}`);

console.log(`${scenario.title}: without and with the access log and metrics, loaded together, ${settings.connectionsEach} connections each, ${settings.rounds} rounds of ${settings.seconds} s`);
const rounds = await measurePaired(operatedPair(), scenario, settings, (round, result) => console.log(describePairRound(round, result)));
console.log(summarisePair(rounds));
