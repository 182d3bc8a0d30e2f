import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { open, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';

const FIFTY_MB = 50 * 1024 * 1024;
const CHUNK = Buffer.alloc(256 * 1024, 0x61);

interface Push {
  /** The status line the client read, or '' if none reached it. */
  readonly statusLine: string;
  /** Body bytes the client handed to its kernel before the server closed. */
  readonly written: number;
  /** How the connection ended on this side: 'end', or the socket's error code. */
  readonly ended: string;
}

/**
 * A client that pushes `head` and a 50 MB body as fast as the connection takes it, reading
 * whatever comes back meanwhile, as curl or a browser does, until the server closes.
 */
async function push(port: number, head: string): Promise<Push> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  let ended = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const closed = new Promise<void>((resolve) => {
    socket.on('end', () => (ended ||= 'end'));
    socket.on('error', (error: NodeJS.ErrnoException) => (ended ||= error.code ?? error.message));
    socket.on('close', () => resolve());
  });
  let written = 0;
  socket.write(head);
  while (written < FIFTY_MB && !socket.destroyed && socket.writable) {
    const more = socket.write(CHUNK);
    written += CHUNK.length;
    // once() rejects on the socket's error (EPIPE once the server has closed): the error is recorded above.
    if (!more) await Promise.race([once(socket, 'drain').catch(() => {}), closed]);
  }
  if (!socket.destroyed) socket.end();
  await closed;
  return { statusLine: received.split('\r\n')[0] ?? '', written, ended };
}

const headOf = (requestLine: string, fields = ''): string => `${requestLine} HTTP/1.1\r\nHost: x\r\n${fields}Content-Type: application/json\r\nContent-Length: ${FIFTY_MB}\r\n\r\n`;

const run = promisify(execFile);

/**
 * curl uploading the file: it sends `Expect: 100-continue`, then the body as fast as the
 * connection takes it, and gives up on the first failed send (exit 55) without reading an
 * answer already sent. What it prints: the status code it read, then its exit code.
 */
async function curlUpload(url: string, file: string): Promise<string> {
  try {
    const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', 'Content-Type: application/json', '--data-binary', `@${file}`, url], { timeout: 20_000 });
    return `${stdout} exit 0`;
  } catch (error) {
    const { stdout, code } = error as { stdout?: string; code?: number | string };
    return `${stdout ?? ''} exit ${code}`;
  }
}

describe('a refused request with a large body still gets its answer', () => {
  let server: RunningPetStore;
  const file = join(tmpdir(), `refused-body-${process.pid}.bin`);
  beforeAll(async () => {
    server = await startPetStore({ PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_API_KEYS: 'refused-body-key:free', PETSTORE_LOG_LEVEL: 'silent' });
    const handle = await open(file, 'w');
    await handle.truncate(FIFTY_MB);
    await handle.close();
  });
  afterAll(async () => {
    await server?.close(0, 0);
    await rm(file, { force: true });
  });

  const urlOf = (listener: 'api' | 'admin'): string => (listener === 'api' ? server.url : (server.adminUrl ?? ''));

  it.each([
    ['POST /v1/pets without a key, on the API', 'api', '/v1/pets', '401'],
    ['POST /metrics, on the admin listener', 'admin', '/metrics', '405'],
  ] as const)('%s: curl pushing 50 MB reads the answer every time of 6', async (_name, listener, path, status) => {
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 6; attempt++) outcomes.push(await curlUpload(`${urlOf(listener)}${path}`, file));
    expect(outcomes).toEqual(Array.from({ length: 6 }, () => `${status} exit 0`));
  });

  it.each([
    ['the API', 'api', headOf('POST /v1/pets'), 'HTTP/1.1 401 Unauthorized'],
    ['the admin listener', 'admin', headOf('POST /metrics'), 'HTTP/1.1 405 Method Not Allowed'],
  ] as const)('%s reads the status line to a client that pushes 50 MB without waiting, then closes long before the 50 MB are sent', async (_name, listener, head, statusLine) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const pushed = await push(Number(new URL(urlOf(listener)).port), head);
      expect(pushed.statusLine, `attempt ${attempt}: ${pushed.ended}`).toBe(statusLine);
      // The server stops after about 1 MiB; the kernel's buffers on both sides take a few MB more.
      expect(pushed.written, `attempt ${attempt}`).toBeLessThan(FIFTY_MB / 2);
    }
  });
});
