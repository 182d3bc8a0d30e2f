import { describe, expect, it } from 'vitest';
import { evaluateTargets, headlineTable, summarise, type BenchResults, type Round, type ScenarioResult } from '../../bench/http/report.js';
import type { ServerName } from '../../bench/http/servers.js';

const round = (serverCpuUsPerRequest: number): Round => ({
  requestsPerSecond: 1e6 / serverCpuUsPerRequest,
  p50Ms: 1,
  p99Ms: 2,
  non2xxShare: 0,
  responses: 10_000,
  errors: 0,
  statusCounts: { '200': 10_000 },
  serverCpuUsPerRequest,
});

const listScenario = (cpu: Partial<Record<ServerName, number[]>>): ScenarioResult => ({
  id: 'list',
  title: 'list',
  expected: 'all 200',
  servers: summarise(Object.entries(cpu).map(([server, rounds]) => ({ server: server as ServerName, label: server, rounds: rounds.map(round) }))),
});

const operatedTarget = (cpu: Partial<Record<ServerName, number[]>>) =>
  evaluateTargets([listScenario(cpu)]).find((target) => target.name.startsWith('GET list, access log + metrics'));

describe('bench targets by CPU per request', () => {
  it('compare the two servers round by round: the machine slowing down between rounds moves both alike', () => {
    // Each round operated costs 1/0.95 of memory; between rounds the machine drifts so that the
    // medians of the two columns come from different rounds (130 against 150: 1.15).
    const target = operatedTarget({ memory: [95, 190, 150], operated: [100, 200, 130] });
    expect(target?.byCpu).toBeCloseTo(0.95, 6);
    expect(target?.met).toBe(true);
  });

  it('miss a target when the server costs more than the threshold allows in most rounds', () => {
    const target = operatedTarget({ memory: [80, 85, 90], operated: [100, 100, 100] });
    expect(target?.byCpu).toBeCloseTo(0.85, 6);
    expect(target?.met).toBe(false);
  });

  it('fall back to req/s when a round has no CPU figure', () => {
    const scenario = listScenario({ memory: [100, 100, 100], operated: [100, 100, 100] });
    const servers = scenario.servers.map((server) =>
      server.server === 'operated' ? { ...server, rounds: server.rounds.map(({ serverCpuUsPerRequest: _, ...rest }) => rest) } : server,
    );
    const target = evaluateTargets([{ ...scenario, servers }]).find((t) => t.name.startsWith('GET list, access log + metrics'));
    expect(target?.byCpu).toBeNull();
    expect(target?.value).toBeCloseTo(1, 6);
  });

  it('judge the access log target from the two servers loaded together where that was measured, keeping the sequential figure beside it', () => {
    const together = [0.93, 0.95, 0.91].map((ratio) => ({ cpuUsPerRequest: [93, 93 / ratio] as const, requestsPerSecond: [5_000, 4_800] as const }));
    const settings = { rounds: 3, seconds: 3, warmUpSeconds: 3, connectionsEach: 25 };
    const target = evaluateTargets([listScenario({ memory: [80, 85, 90], operated: [100, 100, 100] })], [
      { target: 'GET list, access log + metrics on / off (memory store)', settings, rounds: together },
    ]).find((t) => t.name.startsWith('GET list, access log + metrics'));
    expect(target?.byCpu).toBeCloseTo(0.93, 6);
    expect(target?.met).toBe(true);
    expect(target?.sequentialByCpu).toBeCloseTo(0.85, 6);
    expect(target?.name).toContain('both loaded together');
  });

  it('judge the 429 path against the hand-written reference from the two loaded together, reference CPU over ours round by round, with a margin of a tenth', () => {
    const limited: ScenarioResult = { ...listScenario({ memory: [20, 20, 20], router: [19, 19, 19] }), id: 'limited' };
    const settings = { rounds: 3, seconds: 3, warmUpSeconds: 3, connectionsEach: 25 };
    // Reference first: `reference` µs against ours at 20 in two of three rounds.
    const judged = (reference: number) =>
      evaluateTargets([limited], [
        {
          target: '429 path, memory store / find-my-way + fixed window',
          settings,
          rounds: [reference, reference, 19].map((first) => ({ cpuUsPerRequest: [first, 20] as const, requestsPerSecond: [5_000, 5_000] as const })),
        },
      ]).find((t) => t.name.startsWith('429 path, memory store / find-my-way'));
    const alone = evaluateTargets([limited]).find((t) => t.name.startsWith('429 path, memory store / find-my-way'));
    expect(alone?.met).toBe(false);
    expect(alone?.byCpu).toBeCloseTo(0.95, 6);
    expect(judged(23)?.byCpu).toBeCloseTo(1.15, 6);
    expect(judged(23)?.met).toBe(true);
    expect(judged(23)?.sequentialByCpu).toBeCloseTo(0.95, 6);
    // At the reference's line, or a few points over it, is not the margin.
    expect(judged(21.6)?.met).toBe(false);
  });

  it('judge five rules against two by at most 15% more CPU per request, from the two loaded together', () => {
    const settings = { rounds: 3, seconds: 3, warmUpSeconds: 3, connectionsEach: 25 };
    // Two rules first, as the reference: 20 µs against five rules' 20 × the factor, every round.
    const judged = (factor: number) =>
      evaluateTargets([listScenario({ memory: [20, 20, 20], 'five-rules': [20, 20, 20] })], [
        {
          target: 'GET list, a key of five rules / of two (memory store)',
          settings,
          rounds: [1, 2, 3].map(() => ({ cpuUsPerRequest: [20, 20 * factor] as const, requestsPerSecond: [5_000, 5_000] as const })),
        },
      ]).find((t) => t.name.startsWith('GET list, a key of five rules'));
    expect(judged(1.14)?.met).toBe(true);
    expect(judged(1.16)?.met).toBe(false);
    expect(judged(1.16)?.byCpu).toBeCloseTo(1 / 1.16, 6);
  });
});

describe("the README's headline table", () => {
  it('gives each variant of the memory server measured in a scenario a row of its own under it, in the memory column', () => {
    const results = { scenarios: [listScenario({ memory: [25], operated: [28], 'five-rules': [26] })] } as unknown as BenchResults;
    // Cells: the row's name, then ceiling, peer, router, memory...
    const rows = headlineTable(results)
      .split('\n')
      .slice(2)
      .map((row) => row.split('|').map((cell) => cell.trim()).slice(1, 6));
    expect(rows).toEqual([
      ['list', '', '', '', '40,000 (25 µs)'],
      ['the same, access log + metrics on', '', '', '', '35,714 (28 µs)'],
      ['the same, a key of five rules', '', '', '', '38,462 (26 µs)'],
    ]);
  });
});
