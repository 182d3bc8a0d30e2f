import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_LIMITS, REFUSED_BODY_DRAIN } from '../../src/adapters/http/wire/request-limits.js';
import { startAdminServer, type AdminServer } from '../../src/app/admin/admin-server.js';
import type { AdminSource } from '../../src/app/admin/admin-source.js';

const { headersTimeoutMs, keepAliveTimeoutMs } = CONNECTION_LIMITS;
/** Node checks the header timeout once a second: a connection is cut within this of it. */
const CHECK_SLACK_MS = 2_500;

/** A source whose /metrics fails while `failing` is set. */
const source = { failing: false };
/** What the listener logged as failures. */
const logged: { message: string; error: unknown }[] = [];
const fakeSource: AdminSource = {
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
  readiness: async () => ({ ready: true, body: { status: 'ready', stores: ['fake'] } }),
  metrics: async () => {
    if (source.failing) throw new Error('the source failed');
    return 'fake_total 1\n';
  },
};

interface Exchange {
  readonly text: string;
  readonly closedAfterMs: number;
}

/** Opens a connection, writes `parts` `gapMs` apart (all at once without a gap), and resolves with what came back once the server hangs up. */
function exchange(port: number, parts: readonly string[], gapMs = 0): Promise<Exchange> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let next = 0;
    const timer = setInterval(() => {
      if (next < parts.length && !socket.destroyed) socket.write(parts[next++]!);
    }, gapMs);
    if (gapMs === 0) {
      clearInterval(timer);
      socket.write(parts.join(''));
    }
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
  });
}

/** The status, the fields and the parsed JSON body of one raw answer. */
function parsed(text: string): { status: number; fields: string; body: unknown } {
  const headEnd = text.indexOf('\r\n\r\n');
  const head = text.slice(0, headEnd);
  return { status: Number(head.split(' ')[1]), fields: head.toLowerCase(), body: JSON.parse(text.slice(headEnd + 4)) };
}

/** The service's Error format (docs/interface.md, "Errors"). */
const errorOf = (code: string, status: number) => ({ code, status, message: expect.any(String) as unknown });

describe('the admin listener', () => {
  let admin: AdminServer;
  let port: number;

  beforeAll(async () => {
    admin = await startAdminServer({ host: '127.0.0.1', port: 0, source: fakeSource, logError: (message, error) => logged.push({ message, error }) });
    port = Number(new URL(admin.url).port);
  });
  afterAll(() => admin.close());

  describe('answers every error in the Error format', () => {
    it('404 at an unknown path, 405 with Allow for a method other than GET or HEAD', async () => {
      const missing = await fetch(`${admin.url}/nowhere`);
      expect([missing.status, missing.headers.get('content-type'), await missing.json()]).toEqual([404, 'application/json; charset=utf-8', errorOf('not_found', 404)]);
      const posted = await fetch(`${admin.url}/metrics`, { method: 'POST' });
      expect([posted.status, posted.headers.get('allow'), await posted.json()]).toEqual([405, 'GET, HEAD', errorOf('method_not_allowed', 405)]);
    });

    it('500 when the source fails, without a word of the failure to the client, the failure logged for the operator', async () => {
      source.failing = true;
      logged.length = 0;
      try {
        const failed = await fetch(`${admin.url}/metrics`);
        const text = await failed.text();
        expect([failed.status, JSON.parse(text)]).toEqual([500, errorOf('internal_error', 500)]);
        expect(text).not.toContain('the source failed');
        expect(logged).toEqual([{ message: 'request failed', error: new Error('the source failed') }]);
      } finally {
        source.failing = false;
      }
    });

    it("400 for a request Node's parser refuses, then the connection closes", async () => {
      const { text } = await exchange(port, ['G@T /metrics HTTP/1.1\r\nHost: x\r\n\r\n']);
      const answer = parsed(text);
      expect([answer.status, answer.body]).toEqual([400, errorOf('invalid_request', 400)]);
      expect(answer.fields).toContain('connection: close');
    });

    it('serves what it serves as before: /metrics from the source, /healthz, /readyz, HEAD without a body', async () => {
      const metrics = await fetch(`${admin.url}/metrics`);
      expect([metrics.status, metrics.headers.get('content-type'), await metrics.text()]).toEqual([200, fakeSource.contentType, 'fake_total 1\n']);
      expect(await (await fetch(`${admin.url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`${admin.url}/readyz?verbose`)).json()).toEqual({ status: 'ready', stores: ['fake'] });
      const head = await fetch(`${admin.url}/healthz`, { method: 'HEAD' });
      expect([head.status, await head.text()]).toEqual([200, '']);
    });
  });

  // The API's limits (CONNECTION_LIMITS), where Node's defaults let a connection idle or trickle for 62 s.
  describe.concurrent("holds connections to the API's limits", () => {
    it('cuts a client sending its headers a byte at a time once the header timeout is over, with a 408', async () => {
      // One header whose value never ends: 23 s of bytes at this pace.
      const bytes = `GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(200)}`.split('');
      const { text, closedAfterMs } = await exchange(port, bytes, 100);
      expect(parsed(text)).toMatchObject({ status: 408, body: errorOf('request_timeout', 408) });
      expect(closedAfterMs).toBeGreaterThanOrEqual(headersTimeoutMs - 100);
      expect(closedAfterMs).toBeLessThan(headersTimeoutMs + CHECK_SLACK_MS);
    });

    it('closes 500 connections that never send a byte once the header timeout is over', async () => {
      const started = Date.now();
      const sockets: Socket[] = [];
      // Flowing, or a socket never reads the end of the stream and never closes.
      for (let n = 0; n < 500; n++) sockets.push(connect(port, '127.0.0.1').on('error', () => {}).resume());
      const closedAfter = await Promise.all(sockets.map((socket) => new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)))));
      expect(Math.max(...closedAfter)).toBeLessThan(headersTimeoutMs + CHECK_SLACK_MS);
    });

    it('closes a kept-alive connection idle for the keep-alive timeout', async () => {
      const { text, closedAfterMs } = await exchange(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n']);
      expect(text).toMatch(/^HTTP\/1\.1 200 /);
      expect(closedAfterMs).toBeGreaterThanOrEqual(keepAliveTimeoutMs - 100);
      expect(closedAfterMs).toBeLessThan(keepAliveTimeoutMs + CHECK_SLACK_MS);
    });
  });

  it('answers POST /metrics announcing 50 MB with a 405 and Connection: close, and reads at most 1 MiB of the body after the answer (and one socket read) however long the client writes', async () => {
    // What the listener read from each connection, seen from its side: this listener's sockets only.
    const readAtClose = new Map<number, Promise<number>>();
    const onSocket = (message: unknown): void => {
      const { socket } = message as { socket: Socket };
      if (socket.localPort !== port) return;
      readAtClose.set(socket.remotePort!, new Promise((resolve) => socket.once('close', () => resolve(socket.bytesRead))));
    };
    subscribe('net.server.socket', onSocket);
    try {
      const head = 'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 50000000\r\n\r\n';
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      await once(socket, 'connect');
      const localPort = socket.localPort!;
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.write(head);
      const answer = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))));
      // The body follows the answer, up to 50 MB, for as long as the connection takes it (bounded by the byte count).
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let written = 0;
      while (written < 50_000_000 && socket.writable) {
        written += chunk.length;
        if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
      }
      await closed;
      const response = parsed(answer);
      expect([response.status, response.body]).toEqual([405, errorOf('method_not_allowed', 405)]);
      expect(response.fields).toContain('connection: close');
      expect(written).toBeLessThan(50_000_000);
      const bodyRead = (await readAtClose.get(localPort)!) - Buffer.byteLength(head);
      expect(bodyRead).toBeLessThanOrEqual(REFUSED_BODY_DRAIN.bytes + 64 * 1024);
    } finally {
      unsubscribe('net.server.socket', onSocket);
    }
  });
});
