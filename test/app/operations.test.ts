import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { parsePrometheus, samplesOf } from '../support/prometheus-text.js';

const MAIN_KEY = 'ops-main-key-1';
const SMALL_KEY = 'ops-small-key-1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Sent {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly key: string | undefined;
  readonly status: number;
  /** The answer's body, in bytes. */
  readonly bytes: number;
}

interface AccessLine {
  readonly msg: string;
  readonly requestId: string;
  readonly method: string;
  readonly route: string | null;
  readonly status: number;
  readonly durationMs: number;
  readonly path: string;
  readonly bytes: number;
  readonly client: string;
  readonly userAgent: string | null;
  readonly key: string;
  readonly plan: string;
}

const jsonLines = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const untilTrue = async (check: () => boolean, timeoutMs = 2_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe('operating the server: admin listener, metrics, access log, request ids', () => {
  let cli: CliProcess;
  let base = '';
  let admin = '';

  beforeAll(async () => {
    cli = startCli({
      PORT: '0',
      PETSTORE_ENV: 'test',
      PETSTORE_ADMIN_PORT: '0',
      PETSTORE_ACCESS_LOG: 'on',
      PETSTORE_API_KEYS: `${MAIN_KEY}:enterprise:1000:100000,${SMALL_KEY}:enterprise:2:100`,
    });
    [, base = ''] = await cli.waitFor(/listening on (\S+\/v1)/);
    [, admin = ''] = await cli.waitFor(/Admin listening on (\S+)/);
  });
  afterAll(async () => {
    if (cli.child.exitCode === null) {
      cli.kill();
      await cli.exited();
    }
  });

  const sent: Sent[] = [];
  const send = async (method: string, path: string, key: string | undefined, body?: unknown): Promise<Response> => {
    const id = `ops-${sent.length + 1}`;
    const headers: Record<string, string> = { 'x-request-id': id };
    if (key !== undefined) headers['authorization'] = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const bytes = (await response.arrayBuffer()).byteLength;
    expect(response.headers.get('x-request-id')).toBe(id);
    sent.push({ id, method, path, key, status: response.status, bytes });
    return response;
  };

  it('serves /healthz and /readyz on the admin port, and nothing of it on the public one', async () => {
    expect((await fetch(`${admin}/healthz`)).status).toBe(200);
    const ready = await fetch(`${admin}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', stores: ['memory'] }]);
    const publicMetrics = await fetch(`${base.replace(/\/v1$/, '')}/metrics`);
    await publicMetrics.arrayBuffer();
    expect(publicMetrics.status).toBe(404);
  });

  it('counts exactly the requests sent, by method, route template and status, and the quota decisions by plan and verdict', async () => {
    const before = parsePrometheus(await (await fetch(`${admin}/metrics`)).text());
    expect(before.get('process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(0);
    // The one 404 of the previous test (/metrics on the public port) is in the counts already.
    await send('GET', '/pets', MAIN_KEY);
    await send('GET', '/pets?limit=1', MAIN_KEY);
    await send('POST', '/pets', MAIN_KEY, { name: 'Rex', categoryId: 1 });
    await send('POST', '/pets', MAIN_KEY, { name: 'Bo', categoryId: 2 });
    await send('GET', '/pets/999', MAIN_KEY);
    await send('GET', '/nowhere', MAIN_KEY);
    await send('GET', '/pets', undefined);
    await send('GET', '/pets', 'not-a-known-key');
    await send('GET', '/pets', SMALL_KEY);
    await send('GET', '/pets', SMALL_KEY);
    await send('GET', '/pets', SMALL_KEY);
    expect(sent.map((s) => s.status)).toEqual([200, 200, 201, 201, 404, 404, 401, 401, 200, 200, 429]);

    const samples = parsePrometheus(await (await fetch(`${admin}/metrics`)).text());
    expect(samplesOf(samples, 'petstore_http_requests_total')).toEqual({
      'petstore_http_requests_total{method="GET",route="/pets",status="200"}': 4,
      'petstore_http_requests_total{method="POST",route="/pets",status="201"}': 2,
      'petstore_http_requests_total{method="GET",route="/pets/{petId}",status="404"}': 1,
      'petstore_http_requests_total{method="GET",route="unmatched",status="404"}': 2,
      'petstore_http_requests_total{method="GET",route="/pets",status="401"}': 2,
      'petstore_http_requests_total{method="GET",route="/pets",status="429"}': 1,
    });
    expect(samplesOf(samples, 'petstore_quota_decisions_total')).toEqual({
      'petstore_quota_decisions_total{plan="enterprise",verdict="admitted"}': 8,
      'petstore_quota_decisions_total{plan="enterprise",verdict="rate_limited"}': 1,
      'petstore_quota_decisions_total{plan="anonymous",verdict="admitted"}': 3,
    });
    expect(samples.get('petstore_http_request_duration_seconds_count{method="GET",route="/pets"}')).toBe(7);
    expect(samples.get('petstore_http_request_duration_seconds_count{method="POST",route="/pets"}')).toBe(2);
    expect(samples.get('petstore_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="unmatched"}')).toBe(2);
    expect(samples.get('petstore_store_up{store="memory"}')).toBe(1);
    expect(samplesOf(samples, 'petstore_store_errors_total')).toEqual({});
  });

  it('writes one access line per request, with its request id and route template, and never a key', async () => {
    await untilTrue(() => jsonLines(cli.output()).filter((line) => line['msg'] === 'request').length >= sent.length + 1);
    const lines = jsonLines(cli.output()).filter((line) => line['msg'] === 'request') as unknown as AccessLine[];
    const ours = lines.filter((line) => line.requestId.startsWith('ops-'));
    expect(ours.map((line) => line.requestId).sort()).toEqual(sent.map((s) => s.id).sort());
    const byId = new Map(ours.map((line) => [line.requestId, line]));
    for (const s of sent) {
      const line = byId.get(s.id)!;
      const known = s.key === MAIN_KEY || s.key === SMALL_KEY;
      expect(line, s.id).toMatchObject({
        method: s.method,
        status: s.status,
        key: known ? digestApiKey(s.key!).slice(0, 8) : 'anonymous',
        plan: known ? 'enterprise' : 'anonymous',
      });
      expect(line.route, s.id).toBe(s.path === '/nowhere' ? null : s.path.startsWith('/pets/') ? '/pets/{petId}' : '/pets');
      expect(line.durationMs).toBeGreaterThanOrEqual(0);
      // The path as sent, without its query; the client's address; the body's bytes; fetch's user agent.
      expect(line, s.id).toMatchObject({ path: `/v1${s.path.split('?')[0]}`, client: '127.0.0.1', userAgent: 'node' });
      expect(line.bytes, s.id).toBe(s.bytes);
    }
    // The one request without our id: /metrics on the public port, answered with a generated one.
    const others = lines.filter((line) => !line.requestId.startsWith('ops-'));
    expect(others.map((line) => [line.route, line.status])).toEqual([[null, 404]]);
    expect(others[0]!.requestId).toMatch(UUID);
    for (const secret of [MAIN_KEY, SMALL_KEY, 'not-a-known-key', 'Bearer']) expect(cli.output()).not.toContain(secret);
  });

  it('generates a request id when the caller sends none or an unsafe one', async () => {
    const none = await fetch(`${base}/pets`, { headers: { authorization: `Bearer ${MAIN_KEY}` } });
    const unsafe = await fetch(`${base}/pets`, { headers: { authorization: `Bearer ${MAIN_KEY}`, 'x-request-id': 'a b' } });
    expect(none.headers.get('x-request-id')).toMatch(UUID);
    expect(unsafe.headers.get('x-request-id')).toMatch(UUID);
  });

  it('shuts down: readiness 503 first, the request in flight finishes, then exit 0', async () => {
    // A POST whose body is held back: in flight until the test sends the rest.
    const body = JSON.stringify({ name: 'Late', categoryId: 3 });
    const url = new URL(`${base}/pets`);
    let status = 0;
    const answered = new Promise<void>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${MAIN_KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': 'in-flight' } },
        (res) => {
          status = res.statusCode ?? 0;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => {
        cli.kill('SIGTERM');
        setTimeout(async () => {
          try {
            const ready = await fetch(`${admin}/readyz`);
            expect([ready.status, await ready.json()]).toEqual([503, { status: 'shutting_down' }]);
            expect((await fetch(`${admin}/healthz`)).status).toBe(200);
            req.end(body.slice(5));
          } catch (error) {
            reject(error);
          }
        }, 300);
      }, 100);
    });
    await answered;
    expect(status).toBe(201);
    expect(await cli.exited()).toBe(0);
    // In this order, each written before the exit (the asynchronous log is flushed), the
    // request in flight logged between the start of the shutdown and its end.
    const lines = jsonLines(cli.output());
    const from = lines.findIndex((line) => typeof line['msg'] === 'string' && line['msg'].startsWith('shutdown'));
    expect(lines.slice(from).map((line) => (line['msg'] === 'request' ? `request ${String(line['requestId'])} ${String(line['status'])}` : line['msg']))).toEqual([
      'shutdown: readiness answers 503; serving on while load balancers notice',
      'shutdown: no new connections; finishing requests in flight',
      'request in-flight 201',
      'shutdown: every request in flight finished',
      'shutdown: stores closed',
    ]);
  });
});
