import { describe, expect, it } from 'vitest';
import { generatorChoiceFromEnv } from '../../bench/http/generator.js';
import { luaString, measurementOfWrk, parseWrkReport, WRK_REPORT_MARKER, wrkScript } from '../../bench/http/wrk.js';

const HUMAN = 'Running 5s test @ http://127.0.0.1:4000\n  1 threads and 50 connections\n  123 requests in 5.00s, 1.00MB read\nRequests/sec:  24.60\n';
const report = {
  durationUs: 5_000_000,
  requests: 100_000,
  p50Us: 850,
  p99Us: 2_400,
  errors: { connect: 0, read: 1, write: 0, status: 25_000, timeout: 2 },
  cpuTicks: 80,
};
const printed = (body: unknown): string => `${HUMAN}${WRK_REPORT_MARKER}${JSON.stringify(body)}\n`;

describe('wrk output', () => {
  it('is read from the line of JSON its script printed, whatever else wrk printed', () => {
    const measurement = measurementOfWrk(parseWrkReport(printed(report)));
    expect(measurement).toEqual({
      requestsPerSecond: 20_000,
      p50Ms: 0.85,
      p99Ms: 2.4,
      non2xxShare: 0.25,
      responses: 100_000,
      errors: 3,
      statusCounts: { '<400': 75_000, '>=400': 25_000 },
      generator: 'wrk',
      // 0.8 s of CPU over 100,000 responses.
      generatorCpuUsPerRequest: 8,
    });
  });

  it('leaves the generator CPU out where wrk could not read /proc', () => {
    expect(measurementOfWrk(parseWrkReport(printed({ ...report, cpuTicks: -1 }))).generatorCpuUsPerRequest).toBeUndefined();
  });

  it.each([
    ['no output at all', ''],
    ['only the human-readable summary', HUMAN],
    ['two report lines', printed(report) + printed(report)],
  ])('is an error, not zeros, with %s', (_, output) => {
    expect(() => parseWrkReport(output)).toThrow(/wrk printed (no|2) report line/);
  });

  it('is an error when the report is not JSON or lacks a figure', () => {
    expect(() => parseWrkReport(`${WRK_REPORT_MARKER}{"durationUs":5000000,"requests":`)).toThrow(/not JSON/);
    expect(() => parseWrkReport(`${WRK_REPORT_MARKER}[]`)).toThrow(/no errors object/);
    const { p99Us: _, ...withoutP99 } = report;
    expect(() => parseWrkReport(printed(withoutP99))).toThrow(/no p99Us/);
    expect(() => parseWrkReport(printed({ ...report, requests: 'many' }))).toThrow(/no requests/);
    expect(() => parseWrkReport(printed({ ...report, errors: { ...report.errors, timeout: undefined } }))).toThrow(/no errors.timeout/);
    expect(() => parseWrkReport(printed({ ...report, cpuTicks: 1.5 }))).toThrow(/no cpuTicks/);
  });

  it('is an error when wrk got no response: a dead server is not a measurement of 0 req/s', () => {
    const none = { ...report, requests: 0, errors: { ...report.errors, connect: 50, status: 0 } };
    expect(() => measurementOfWrk(parseWrkReport(printed(none)))).toThrow(/no response .*connect 50/);
  });
});

describe('wrk script', () => {
  it('writes every string as a Lua literal of its UTF-8 bytes', () => {
    expect(luaString('Bearer k-1')).toBe('"Bearer k-1"');
    expect(luaString('"\\\në')).toBe('"\\034\\092\\010\\195\\171"');
  });

  it('sets the one request and prints its report after the marker', () => {
    const script = wrkScript({ method: 'POST', path: '/v1/pets', headers: { authorization: 'Bearer k' }, body: '{"name":"Rex"}' });
    expect(script).toContain('wrk.method = "POST"');
    expect(script).toContain('wrk.path = "/v1/pets"');
    expect(script).toContain('wrk.headers["authorization"] = "Bearer k"');
    expect(script).toContain('wrk.body = "{\\034name\\034:\\034Rex\\034}"');
    expect(script).toContain(`"${WRK_REPORT_MARKER}"`);
    // No response(): wrk would hand every response to Lua.
    expect(script).not.toMatch(/function response/);
  });
});

describe('BENCH_LOAD', () => {
  const fixed = { method: 'GET' as const, path: '/pets', headers: {} };
  const spread = { ...fixed, authorizationsOf: () => ['Bearer a'] };
  const sequence = { stepsOf: () => [] };

  it('unset: wrk for one fixed request where wrk is on PATH, autocannon for the rest or without wrk', () => {
    const withWrk = generatorChoiceFromEnv(undefined, () => true);
    expect([withWrk(fixed), withWrk(spread), withWrk(sequence)]).toEqual(['wrk', 'autocannon', 'autocannon']);
    expect(generatorChoiceFromEnv(undefined, () => false)(fixed)).toBe('autocannon');
  });

  it('autocannon: everything; wrk: stops the bench without wrk on PATH; anything else is refused', () => {
    expect(generatorChoiceFromEnv('autocannon', () => true)(fixed)).toBe('autocannon');
    expect(generatorChoiceFromEnv('wrk', () => true)(sequence)).toBe('autocannon');
    expect(() => generatorChoiceFromEnv('wrk', () => false)).toThrow(/no wrk on PATH/);
    expect(() => generatorChoiceFromEnv('ab', () => true)).toThrow(/BENCH_LOAD must be wrk or autocannon/);
  });
});
