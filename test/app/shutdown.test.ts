import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../support/cli-process.js';

const KEY = 'drain-key-123';
const running: CliProcess[] = [];

afterEach(async () => {
  for (const cli of running.splice(0)) {
    cli.kill('SIGKILL');
    await cli.exited();
  }
});

const start = async (environ: Record<string, string> = {}): Promise<{ cli: CliProcess; url: URL; admin: string | undefined }> => {
  const cli = startCli({ PORT: '0', PETSTORE_ENV: 'test', PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:1000000`, ...environ });
  running.push(cli);
  const [, url = ''] = await cli.waitFor(/listening on (\S+)/);
  const admin = environ['PETSTORE_ADMIN_PORT'] === undefined ? undefined : (await cli.waitFor(/Admin listening on (\S+)/))[1];
  return { cli, url: new URL(url), admin };
};

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
}

/** One GET, on a connection of its own unless an agent is given; rejects with the socket's error (ECONNRESET...). */
const get = (url: URL, path: string, agent: Agent | false = false): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path, agent, headers: { authorization: `Bearer ${KEY}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end();
  });

const outcome = (answer: PromiseSettledResult<Answer>): string =>
  answer.status === 'fulfilled' ? String(answer.value.status) : ((answer.reason as { code?: string }).code ?? String(answer.reason));

describe('shutdown on SIGTERM', () => {
  it('answers every request of a burst sent as SIGTERM arrives, each on a new connection, none reset, then exits 0', async () => {
    for (let run = 0; run < 3; run++) {
      const { cli, url } = await start();
      const burst = Array.from({ length: 60 }, () => get(url, '/v1/pets?limit=100'));
      await sleep(5);
      cli.kill('SIGTERM');
      const outcomes = (await Promise.allSettled(burst)).map(outcome);
      expect(outcomes.filter((status) => status !== '200'), `run ${run}`).toEqual([]);
      expect(await cli.exited()).toBe(0);
    }
  });

  it('answers a request sent on an idle keep-alive connection just after SIGTERM, with Connection: close', async () => {
    const { cli, url } = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await get(url, '/v1/pets', agent);
    expect(first.headers.connection).toBe('keep-alive');
    cli.kill('SIGTERM');
    await sleep(50);
    const second = await get(url, '/v1/pets', agent);
    expect([second.status, second.headers.connection]).toEqual([200, 'close']);
    agent.destroy();
    expect(await cli.exited()).toBe(0);
  });

  it('stops accepting at once under a steady stream of new connections, answers what it accepted, and exits 0 long before the stream ends', async () => {
    // A grace far beyond the stream: the process may exit only by finishing what it accepted, not by cutting it.
    const { cli, url } = await start({ PETSTORE_SHUTDOWN_GRACE_MS: '60000' });
    const STREAM_MS = 15_000;
    const EVERY_MS = 50;
    const outcomes: string[] = [];
    let streaming = true;
    let exitedWhileStreaming = false;
    let signalled = false;
    const exit = cli.exited().then((code) => {
      exitedWhileStreaming = streaming;
      return code;
    });
    // One new connection every 50 ms, each with one request, until the port refuses three in a row or the stream's time is up.
    const stream = (async () => {
      const started = Date.now();
      const pending: Promise<void>[] = [];
      let refusedInARow = 0;
      while (Date.now() - started < STREAM_MS && refusedInARow < 3) {
        pending.push(
          get(url, '/v1/pets').then(
            (answer) => {
              outcomes.push(String(answer.status));
              refusedInARow = 0;
            },
            (error: { code?: string }) => {
              outcomes.push(error.code ?? String(error));
              if (signalled && error.code === 'ECONNREFUSED') refusedInARow++;
            },
          ),
        );
        await sleep(EVERY_MS);
      }
      streaming = false;
      await Promise.all(pending);
      return Date.now() - started;
    })();
    await sleep(1_000);
    signalled = true;
    cli.kill('SIGTERM');
    expect(await exit).toBe(0);
    const streamedMs = await stream;
    expect(exitedWhileStreaming, 'the process exited while connections kept coming').toBe(true);
    expect(streamedMs).toBeLessThan(STREAM_MS);
    // Every connection was answered, or refused once the listener had closed: none reset, none unanswered.
    const served = outcomes.filter((outcome) => outcome === '200').length;
    expect(served).toBeGreaterThan(5);
    expect(outcomes.filter((outcome) => outcome !== '200' && outcome !== 'ECONNREFUSED')).toEqual([]);
    expect(cli.output()).toMatch(/"cutConnections":false,"msg":"shutdown: every request in flight finished"/);
  });

  it('with PETSTORE_DRAIN_SECONDS, turns readiness 503 at once and keeps accepting until the drain ends, then refuses connections and exits 0', async () => {
    const { cli, url, admin } = await start({ PETSTORE_DRAIN_SECONDS: '1', PETSTORE_ADMIN_PORT: '0' });
    expect((await fetch(`${admin}/readyz`)).status).toBe(200);
    const signalled = Date.now();
    cli.kill('SIGTERM');
    await sleep(100);
    expect((await fetch(`${admin}/readyz`)).status).toBe(503);
    expect((await get(url, '/v1/pets')).status).toBe(200);
    await sleep(Math.max(0, 1_000 - (Date.now() - signalled)) + 400);
    await expect(get(url, '/v1/pets')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(await cli.exited()).toBe(0);
  });
});
