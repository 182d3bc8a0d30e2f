import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { LoadRequest, Measurement } from './load.js';

/*
 * Debian's `wrk` as the HTTP bench's load generator for a load of one fixed request: a C event
 * loop on one thread, measured on this machine at 7 to 9 µs of CPU per request of the `list`
 * scenario where autocannon, in the bench's own Node process, takes 16 to 23 (same runs).
 *
 * The request is set and the figures are printed by a Lua script of its own (written to a
 * temporary directory, removed after the run): its `done()` prints one line of JSON after a
 * marker, so nothing is read from wrk's human-readable summary. The script defines no
 * `response()`: with one, wrk hands every response's headers and body to Lua, which cost it
 * about 2 µs more per request (10.1 and 9.7 against 8.1 and 7.5 µs, `list` on the memory store,
 * 50 connections, 5 s runs, interleaved), a quarter of its CPU. wrk itself counts responses of
 * status 400 and above, which is what the bench's non-2xx share needs (no bench server answers
 * 1xx or 3xx); the exact codes are what autocannon reports (`BENCH_LOAD=autocannon`).
 */

/** Starts the line of JSON the script's `done()` prints. */
export const WRK_REPORT_MARKER = 'petstore-wrk-report ';

/** The keys of a wrk measurement's `statusCounts`: wrk tells no codes apart, only these two classes. */
export const WRK_BELOW_400 = '<400';
export const WRK_400_AND_ABOVE = '>=400';

/** What the script's `done()` prints: wrk's summary, its latency percentiles (µs), and its own CPU ticks (-1 without /proc). */
export interface WrkReport {
  readonly durationUs: number;
  readonly requests: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly errors: { readonly connect: number; readonly read: number; readonly write: number; readonly status: number; readonly timeout: number };
  readonly cpuTicks: number;
}

/** Linux's USER_HZ: /proc/self/stat reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100;
/** As autocannon's default: a response slower than this is a timeout. */
const TIMEOUT_SECONDS = 10;
/** After the run's own seconds: wrk that has not exited by then is killed and the run fails. */
const EXIT_GRACE_MS = 30_000;

/** A Lua string literal of `value`'s UTF-8 bytes: printable ASCII as is, every other byte as `\ddd`. */
export const luaString = (value: string): string => {
  let literal = '"';
  for (const byte of Buffer.from(value, 'utf8')) {
    literal += byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
  }
  return `${literal}"`;
};

/** The Lua script of one fixed request, its path already under the server's base path (e.g. `/v1/pets?limit=20`). */
export const wrkScript = (request: LoadRequest): string =>
  [
    `wrk.method = ${luaString(request.method)}`,
    `wrk.path = ${luaString(request.path)}`,
    ...Object.entries(request.headers).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`),
    ...(request.body === undefined ? [] : [`wrk.body = ${luaString(request.body)}`]),
    '',
    '-- utime + stime of this process (every thread), in ticks; -1 where /proc cannot be read.',
    'local function cpu_ticks()',
    '  local file = io.open("/proc/self/stat", "r")',
    '  if file == nil then return -1 end',
    '  local stat = file:read("*a")',
    '  file:close()',
    '  local fields = {}',
    '  -- After the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.',
    '  for field in stat:match(".*%)%s+(.*)"):gmatch("%S+") do fields[#fields + 1] = field end',
    '  return tonumber(fields[12]) + tonumber(fields[13])',
    'end',
    '',
    'function done(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(',
    `    ${luaString(WRK_REPORT_MARKER)} .. '{"durationUs":%d,"requests":%d,"p50Us":%.17g,"p99Us":%.17g,' ..`,
    `    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"cpuTicks":%d}\\n',`,
    '    summary.duration, summary.requests, latency:percentile(50), latency:percentile(99),',
    '    e.connect, e.read, e.write, e.status, e.timeout, cpu_ticks()))',
    '  io.flush()',
    'end',
    '',
  ].join('\n');

const count = (value: unknown, name: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error(`wrk's report has no ${name} (${JSON.stringify(value)})`);
  return value;
};

/**
 * The report in what wrk printed: the one line that starts with the marker, whatever else wrk
 * printed around it. Throws, saying what is wrong, when the line is missing, is not JSON, or
 * lacks a figure: a broken run must stop the bench, not be measured as zeros.
 */
export const parseWrkReport = (stdout: string): WrkReport => {
  const lines = stdout.split('\n').filter((line) => line.startsWith(WRK_REPORT_MARKER));
  if (lines.length !== 1) {
    const tail = stdout.trim().slice(-400);
    throw new Error(`wrk printed ${lines.length === 0 ? 'no' : lines.length} report line${lines.length === 0 ? '' : 's'} (expected one starting "${WRK_REPORT_MARKER.trim()}"); its output: ${tail === '' ? '(none)' : tail}`);
  }
  const text = lines[0]!.slice(WRK_REPORT_MARKER.length);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`wrk's report is not JSON: ${text.slice(0, 400)}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`wrk's report is not a JSON object: ${text.slice(0, 400)}`);
  const report = parsed as Record<string, unknown>;
  const errors = report['errors'];
  if (typeof errors !== 'object' || errors === null) throw new Error(`wrk's report has no errors object: ${text.slice(0, 400)}`);
  const error = (name: string): number => count((errors as Record<string, unknown>)[name], `errors.${name}`);
  const cpuTicks = report['cpuTicks'];
  if (typeof cpuTicks !== 'number' || !Number.isInteger(cpuTicks) || cpuTicks < -1) throw new Error(`wrk's report has no cpuTicks (${JSON.stringify(cpuTicks)})`);
  return {
    durationUs: count(report['durationUs'], 'durationUs'),
    requests: count(report['requests'], 'requests'),
    p50Us: count(report['p50Us'], 'p50Us'),
    p99Us: count(report['p99Us'], 'p99Us'),
    errors: { connect: error('connect'), read: error('read'), write: error('write'), status: error('status'), timeout: error('timeout') },
    cpuTicks,
  };
};

/** A report as the bench's Measurement. A run without a single response is an error: its figures would be zeros. */
export const measurementOfWrk = (report: WrkReport): Measurement => {
  const { requests, errors } = report;
  const socketErrors = errors.connect + errors.read + errors.write + errors.timeout;
  if (requests === 0 || report.durationUs === 0) {
    throw new Error(`wrk got no response in ${report.durationUs / 1e6} s (errors: connect ${errors.connect}, read ${errors.read}, write ${errors.write}, timeout ${errors.timeout})`);
  }
  if (errors.status > requests) throw new Error(`wrk's report counts ${errors.status} responses of status 400 and above out of ${requests}`);
  return {
    requestsPerSecond: requests / (report.durationUs / 1e6),
    p50Ms: report.p50Us / 1000,
    p99Ms: report.p99Us / 1000,
    non2xxShare: errors.status / requests,
    responses: requests,
    errors: socketErrors,
    statusCounts: Object.fromEntries(
      [
        [WRK_BELOW_400, requests - errors.status],
        [WRK_400_AND_ABOVE, errors.status],
      ].filter(([, n]) => n !== 0),
    ),
    generator: 'wrk',
    ...(report.cpuTicks < 0 ? {} : { generatorCpuUsPerRequest: ((report.cpuTicks / TICKS_PER_SECOND) * 1e6) / requests }),
  };
};

/** Whether an executable `wrk` is on PATH. */
export const wrkOnPath = (): boolean =>
  (process.env['PATH'] ?? '').split(delimiter).some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, 'wrk'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

/**
 * One wrk run (one thread) of whole `seconds` with `connections` keep-alive connections, each
 * sending `request` in a loop, its path under `baseUrl`'s. The generator's CPU per request is
 * wrk's own utime + stime (/proc/self/stat, read by its `done()`), startup included.
 */
export const runWrk = (baseUrl: string, request: LoadRequest, connections: number, seconds: number): Promise<Measurement> => {
  if (!Number.isInteger(seconds)) return Promise.reject(new Error(`wrk runs whole seconds, not ${seconds}`));
  const base = new URL(baseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'petstore-wrk-'));
  const script = join(dir, 'load.lua');
  writeFileSync(script, wrkScript({ ...request, path: base.pathname + request.path }));
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, `--timeout`, `${TIMEOUT_SECONDS}s`, '-s', script, base.origin];
  return new Promise<Measurement>((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), seconds * 1000 + EXIT_GRACE_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`wrk could not be started (${error.message}); install it (apt-get install wrk) or set BENCH_LOAD=autocannon`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        return reject(new Error(`wrk ${args.join(' ')} exited with ${signal ?? `code ${code}`}: ${(stderr || stdout).trim().slice(-400) || '(no output)'}`));
      }
      try {
        resolve(measurementOfWrk(parseWrkReport(stdout)));
      } catch (error) {
        reject(error);
      }
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
};
