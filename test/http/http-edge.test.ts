import { MAX_BAN_STRIKES } from '../../src/domain/quota/ban-policy.js';
import { memoryServices } from '../support/memory-services.js';
import { once } from 'node:events';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { getDefaultHighWaterMark } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { createHttpServer, type PetStoreHttpServer } from '../../src/adapters/http/http-server.js';
import { REFUSED_BODY_DRAIN } from '../../src/adapters/http/wire/request-limits.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { STANDARD_PLANS, type Plan } from '../../src/domain/quota/plan.js';
import { RequestAdmission } from '../../src/domain/quota/request-admission.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';
import type { QuotaStore } from '../../src/ports/quota-store.js';
import { expectError, HttpClient, listAll, type HttpResult, type PetBody } from '../support/http-client.js';
import { assertMatchesOpenApi } from '../support/openapi-validator.js';
import { KEYS, requestWithHeaders, startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';
import { decidingStore, failingStore } from '../support/quota-store-doubles.js';
import { QuotaOutageFallback } from '../../src/adapters/wrappers/quota-outage-fallback.js';

// The HTTP edge (docs/decisions.md): nothing answers outside the Error format {code, message, status}.
// Every test talks to a real server over real sockets; raw bytes through node:net wherever
// fetch cannot express the request (or would merge, fix or hide what is under test).

// ---------------------------------------------------------------------------------------------
// Raw HTTP/1.1 on a socket
// ---------------------------------------------------------------------------------------------

interface RawResponse {
  readonly statusLine: string;
  readonly status: number;
  /** Lowercased names; a repeated field keeps every value. */
  readonly fields: ReadonlyMap<string, readonly string[]>;
  /** The Content-Length bytes after the head (everything left when there is none). */
  readonly body: Buffer;
  /** Bytes received after this response's body. */
  readonly rest: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** One response from the start of `bytes`, or undefined while its head or body is incomplete. */
function parseResponse(bytes: Buffer, options: { bodyless?: boolean } = {}): RawResponse | undefined {
  const headEnd = bytes.indexOf(HEAD_END);
  if (headEnd === -1) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const fields = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    fields.set(name, [...(fields.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  const start = headEnd + HEAD_END.length;
  const declared = fields.get('content-length')?.[0];
  const length = options.bodyless === true ? 0 : declared === undefined ? bytes.length - start : Number(declared);
  if (bytes.length < start + length) return undefined;
  return {
    statusLine,
    status: Number(/^HTTP\/1\.[01] ([0-9]{3}) /.exec(statusLine)?.[1]),
    fields,
    body: bytes.subarray(start, start + length),
    rest: bytes.subarray(start + length),
  };
}

/** Every complete response in `bytes`, in order. */
function parseResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  for (let response = parseResponse(bytes); response !== undefined; response = parseResponse(response.rest)) responses.push(response);
  return responses;
}

const field = (response: RawResponse, name: string): string | undefined => response.fields.get(name)?.join(', ');

/** The response as the OpenAPI validator takes it. */
const observed = (response: RawResponse) => ({
  status: response.status,
  headers: Object.fromEntries([...response.fields].map(([name, values]) => [name, values.join(', ')])),
  body: JSON.parse(response.body.toString('utf8')) as unknown,
});

/** An answer in the Error format, `status` equal to the HTTP status, sent with `Connection: close`. */
function expectRawError(response: RawResponse | undefined, status: number, code: string): void {
  expect(response, 'a complete response was received').toBeDefined();
  const { statusLine, body } = response!;
  expect(statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [A-Za-z ]+$`));
  expect(field(response!, 'content-type')).toBe('application/json; charset=utf-8');
  expect(field(response!, 'content-length')).toBe(String(body.length));
  expect(field(response!, 'connection')?.toLowerCase()).toBe('close');
  const text = body.toString('utf8');
  const parsed = JSON.parse(text) as Record<string, unknown>;
  expect(Object.keys(parsed).sort()).toEqual(['code', 'message', 'status']);
  expect(parsed).toEqual({ code, message: expect.stringMatching(/./), status });
  expect(text).not.toMatch(/\n\s+at |\.[cm]?[jt]s:\d|node_modules|node:internal|\bstack\b/);
}

interface Exchange {
  /** Every byte the server sent. */
  readonly received: Buffer;
  /** The server ended or reset the connection; this side never closes it first. */
  readonly closedByServer: boolean;
  readonly elapsedMs: number;
}

/** Writes `request` and collects what comes back until the server closes the connection. */
async function exchange(port: number, request: string | Buffer): Promise<Exchange> {
  const started = Date.now();
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let closedByServer = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('end', () => (closedByServer = true));
  socket.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ECONNRESET') closedByServer = true;
  });
  const closed = closing(socket);
  socket.write(request);
  await closed;
  return { received: Buffer.concat(chunks), closedByServer, elapsedMs: Date.now() - started };
}

/** Resolves when the socket has closed, however (events.once would reject on its 'error'). */
const closing = (socket: Socket): Promise<void> => new Promise((resolve) => socket.once('close', () => resolve()));

const waitForDrainOrClose = (socket: Socket): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });

interface Flood {
  readonly response: RawResponse | undefined;
  readonly closedByServer: boolean;
  /** This side's port: the server sees it as the connection's remote port. */
  readonly localPort: number;
  /** Body bytes this side handed to its kernel (what the server could have read). */
  readonly bodyBytesWritten: number;
}

/** libuv's read size: what one socket read hands Node at most. */
const ONE_READ = 64 * 1024;
const BODY_CHUNK = Buffer.alloc(64 * 1024, 0x61);
/** Bytes written while the server still accepts them; far below the 50,000,000 declared. */
const FLOOD_LIMIT = 8 * 1024 * 1024;

/**
 * Sends `head` (which declares a large body), optionally `eagerBytes` of the body right behind it
 * without waiting, waits for the answer, then keeps writing the body in 64 KiB chunks until the
 * server closes the connection (EPIPE and ECONNRESET expected) or FLOOD_LIMIT bytes are written.
 */
async function floodAfterAnswer(port: number, head: string, eagerBytes = 0): Promise<Flood> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const localPort = socket.localPort!;
  const chunks: Buffer[] = [];
  let response: RawResponse | undefined;
  let closedByServer = false;
  let bodyBytesWritten = 0;
  const closed = closing(socket);
  const answered = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      response ??= parseResponse(Buffer.concat(chunks));
      if (response !== undefined) resolve();
    });
    socket.on('close', () => resolve());
  });
  socket.on('end', () => (closedByServer = true));
  socket.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE') closedByServer = true;
  });

  socket.write(head);
  for (let sent = 0; sent < eagerBytes; sent += BODY_CHUNK.length) {
    socket.write(BODY_CHUNK);
    bodyBytesWritten += BODY_CHUNK.length;
  }
  await answered;
  while (bodyBytesWritten < FLOOD_LIMIT && socket.writable) {
    const more = socket.write(BODY_CHUNK);
    bodyBytesWritten += BODY_CHUNK.length;
    if (!more) await waitForDrainOrClose(socket);
  }
  await closed;
  return { response, closedByServer, localPort, bodyBytesWritten };
}

// ---------------------------------------------------------------------------------------------
// A server wired by hand (createHttpServer), for stubs, short timeouts and socket measurements
// ---------------------------------------------------------------------------------------------

const EDGE_KEY = 'edge-key';
/** One request a minute, never banned: its second request is a 429 rate_limited. */
const LIMITED_KEY = 'edge-limited-key';
const ONE_PER_MINUTE: Plan = { name: 'free', rules: [{ name: 'minute', limit: 1, windowMs: 60_000 }] };
const NEVER_BANNED = { strikes: MAX_BAN_STRIKES, strikeWindowMs: 60_000, banMs: 60_000 };

interface EdgeServer {
  readonly port: number;
  readonly baseUrl: string;
  readonly client: HttpClient;
  /** What the server had read from the connection whose remote port is `port` when it closed. */
  bytesReadAtClose(port: number): Promise<number>;
  close(): Promise<void>;
}

interface EdgeServerOptions {
  readonly repository?: PetRepository;
  readonly quotas?: (inner: QuotaStore) => QuotaStore;
  readonly logError?: (message: string, error: unknown) => void;
  readonly headersTimeoutMs?: number;
  /** Sees each connection the server accepts. */
  readonly onConnection?: (socket: Socket) => void;
}

async function startEdgeServer(options: EdgeServerOptions = {}): Promise<EdgeServer> {
  const keys = new MemoryApiKeyRegistry();
  await keys.register(digestApiKey(EDGE_KEY), { plan: STANDARD_PLANS.business, role: 'customer' });
  await keys.register(digestApiKey(LIMITED_KEY), { plan: ONE_PER_MINUTE, role: 'customer' });
  const memoryQuotas = new MemoryQuotaStore(new SystemClock());
  const admission = new RequestAdmission(keys, options.quotas === undefined ? memoryQuotas : options.quotas(memoryQuotas), {
    anonymousPolicy: { rules: [{ name: 'minute', limit: 1_000, windowMs: 60_000 }] },
    ban: NEVER_BANNED,
  });
  const server: PetStoreHttpServer = createHttpServer(
    { ...(await memoryServices(options.repository === undefined ? {} : { pets: options.repository })), admission },
    {
      deprecatedAt: new Date('2026-01-01T00:00:00Z'),
      headersTimeoutMs: options.headersTimeoutMs ?? 5_000,
      requestTimeoutMs: 10_000,
      keepAliveTimeoutMs: 1_000,
      logError: options.logError ?? (() => {}),
    },
  );
  // By the client's port: the test knows it, and the server sees it as the connection's remote port.
  const closes = new Map<number, Promise<number>>();
  server.on('connection', (socket: Socket) => {
    // Node keeps the count of a destroyed socket: this is every byte read from the kernel.
    closes.set(socket.remotePort!, new Promise((resolve) => socket.on('close', () => resolve(socket.bytesRead))));
    options.onConnection?.(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  return {
    port,
    baseUrl,
    client: new HttpClient(baseUrl, EDGE_KEY),
    bytesReadAtClose: (remotePort) => closes.get(remotePort) ?? Promise.reject(new Error(`no connection from port ${remotePort}`)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const portOf = (baseUrl: string): number => Number(new URL(baseUrl).port);

/** Deprecation fields of getPet (RFC 9745, RFC 8594, successor link). */
function expectDeprecationFields(result: HttpResult): void {
  expect(result.headers.get('deprecation')).toBe('@1767225600');
  expect(result.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  expect(result.headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
}

/**
 * A PetRepository every method of which (whatever the port declares) fails with `failure()`; not
 * a thenable, so it resolves as a value; and, like any store other instances write, with no
 * write count to tell (the list path's cache would call it outside a request).
 */
const failingRepository = (failure: () => Error): PetRepository =>
  new Proxy({} as PetRepository, { get: (_target, name) => (name === 'then' || name === 'writeCount' ? undefined : () => Promise.reject(failure())) });

const RATE_LIMIT_FIELDS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit'];

// ---------------------------------------------------------------------------------------------

describe('HTTP edge', () => {
  let store: TestPetStore;
  let port: number;
  let rex: PetBody;

  beforeAll(async () => {
    store = await startTestPetStore();
    port = portOf(store.baseUrl);
    rex = (await store.client.post('/pets', { json: { name: 'Rex', categoryId: 1 } })).body as PetBody;
  });
  afterAll(() => store.close());

  describe("rule 1: Node's parser errors are answered in the Error format with Connection: close, then the server closes", () => {
    const GOOD_HEAD = `Host: x\r\nAuthorization: Bearer ${KEYS.enterprise}\r\n`;

    it.each([
      ['garbage instead of a request line', 'NOT A REQUEST\r\n\r\n'],
      ['a request line with an unknown method', 'FETCH /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a request line with a space in the target', 'GET /v1/pets /x HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a request line with another protocol', 'GET /v1/pets HTTPS/1.1\r\nHost: x\r\n\r\n'],
      ['a request line with a control character in the target', 'GET /v1/p\x01ets HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a request line starting with a space', ' GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['lines ending in a bare LF', 'GET /v1/pets HTTP/1.1\nHost: x\n\n'],
    ])('answers %s with 400 invalid_request', async (_label, request) => {
      const { received, closedByServer } = await exchange(port, request);
      const response = parseResponse(received);
      expectRawError(response, 400, 'invalid_request');
      expect(response!.rest.length, 'nothing follows the answer').toBe(0);
      expect(closedByServer).toBe(true);
    });

    it.each([
      ['a header name with a space', `GET /v1/pets HTTP/1.1\r\n${GOOD_HEAD}Bad Name: y\r\n\r\n`],
      ['a header line without a colon', `GET /v1/pets HTTP/1.1\r\n${GOOD_HEAD}NoColonHere\r\n\r\n`],
      ['a header value with a NUL byte', `GET /v1/pets HTTP/1.1\r\n${GOOD_HEAD}X-Test: a\0b\r\n\r\n`],
      ['an obsolete folded header line', `GET /v1/pets HTTP/1.1\r\n${GOOD_HEAD}X-Test: a\r\n folded\r\n\r\n`],
      ['a Content-Length that is not a number', `POST /v1/pets HTTP/1.1\r\n${GOOD_HEAD}Content-Length: abc\r\n\r\n`],
      ['two different Content-Length values', `POST /v1/pets HTTP/1.1\r\n${GOOD_HEAD}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`],
      [
        'both Content-Length and Transfer-Encoding',
        `POST /v1/pets HTTP/1.1\r\n${GOOD_HEAD}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      ],
    ])('answers %s with 400 invalid_request', async (_label, request) => {
      const { received, closedByServer } = await exchange(port, request);
      expectRawError(parseResponse(received), 400, 'invalid_request');
      expect(closedByServer).toBe(true);
    });

    it("answers headers over Node's 16 KiB limit (a 20 KiB header) with 431 headers_too_large", async () => {
      const request = `GET /v1/pets HTTP/1.1\r\n${GOOD_HEAD}X-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`;
      const { received, closedByServer } = await exchange(port, request);
      const response = parseResponse(received);
      expectRawError(response, 431, 'headers_too_large');
      expect(closedByServer).toBe(true);
    });

    it('answers headers not completed within headersTimeout with 408 request_timeout', async () => {
      const edge = await startEdgeServer({ headersTimeoutMs: 300 });
      try {
        // Part of the headers, then silence: the server, not this test, ends the wait.
        const { received, closedByServer, elapsedMs } = await exchange(edge.port, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bea`);
        const response = parseResponse(received);
        expectRawError(response, 408, 'request_timeout');
        expect(closedByServer).toBe(true);
        expect(elapsedMs).toBeGreaterThanOrEqual(250);
        expect(elapsedMs).toBeLessThan(5_000);
      } finally {
        await edge.close();
      }
    });

    it('answers a chunk extension over 16 KiB (HPE_CHUNK_EXTENSIONS_OVERFLOW) with 413 payload_too_large', async () => {
      const before = (await listAll(store.client)).pets;
      const request =
        `POST /v1/pets HTTP/1.1\r\n${GOOD_HEAD}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `1e;ext=${'x'.repeat(20 * 1024)}\r\n{"name":"Ext","categoryId":1}\r\n0\r\n\r\n`;
      const { received, closedByServer } = await exchange(port, request);
      const response = parseResponse(received);
      expectRawError(response, 413, 'payload_too_large');
      expect(response!.rest.length, 'one answer only').toBe(0);
      expect(closedByServer).toBe(true);
      expect((await listAll(store.client)).pets, 'nothing stored').toEqual(before);
    });
  });

  describe('rule 2: HEAD works wherever GET does: same status and headers, Content-Length included, no body', () => {
    // Fields that legitimately differ between two consecutive requests: the clock and the quota
    // spent; and the connection's management, as fetch closes the connection of every HEAD.
    const VOLATILE = new Set(['date', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'connection', 'keep-alive', 'x-request-id']);
    const stable = (fields: Iterable<readonly [string, string]>): Record<string, string> =>
      Object.fromEntries([...fields].filter(([name]) => !VOLATILE.has(name)));

    it.each([
      ['/pets', 200],
      ['/pets?limit=1', 200],
      ['/pets?limit=0', 400],
      ['/pets/{rex}', 200],
      ['/pets/999999', 404],
      ['/pets/abc', 400],
      ['/openapi.json', 200],
    ])('HEAD %s answers as GET does (%i) without a body', async (template, status) => {
      const target = template.replace('{rex}', String(rex.id));
      const get = await store.client.get(target);
      const head = await store.client.request('HEAD', target);
      expect(get.status).toBe(status);
      expect(head.status).toBe(status);
      expect(stable(head.headers)).toEqual(stable(get.headers));
      // fetch decodes a compressed body: its length on the wire is then GET's Content-Length, compared above.
      if (get.headers.get('content-encoding') === null) expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
      expect(head.text).toBe('');
      for (const name of RATE_LIMIT_FIELDS) expect(head.headers.has(name), name).toBe(true);
    });

    it.each(['/v1/openapi.json', '/v1/pets/{rex}', '/v1/pets?limit=1', '/v1/pets/999999'])(
      'HEAD %s on the wire: the head GET sends, then no byte',
      async (template) => {
        const path = template.replace('{rex}', String(rex.id));
        const request = (method: string): string =>
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.enterprise}\r\nConnection: close\r\n\r\n`;
        const get = parseResponse((await exchange(port, request('GET'))).received);
        const head = parseResponse((await exchange(port, request('HEAD'))).received, { bodyless: true });
        expect(head?.statusLine).toBe(get?.statusLine);
        const fieldsOf = (response: RawResponse) => [...response.fields].map(([name, values]) => [name, values.join(', ')] as const);
        expect(stable(fieldsOf(head!))).toEqual(stable(fieldsOf(get!)));
        expect(field(head!, 'content-length')).toBe(String(get!.body.length));
        expect(get!.body.length).toBeGreaterThan(0);
        expect(head!.rest.length, 'no byte after the head').toBe(0);
      },
    );
  });

  describe('rule 3: two Authorization headers or two Host headers are a 400 invalid_request', () => {
    it.each([
      ['two identical Authorization headers', `Host: x\r\nAuthorization: Bearer ${KEYS.enterprise}\r\nAuthorization: Bearer ${KEYS.enterprise}\r\n`],
      ['two different Authorization headers', `Host: x\r\nAuthorization: Bearer ${KEYS.free}\r\nauthorization: Bearer ${KEYS.enterprise}\r\n`],
      ['two Host headers', `Host: a.example\r\nHost: b.example\r\nAuthorization: Bearer ${KEYS.enterprise}\r\n`],
      ['two Host headers spelled differently', `host: x\r\nHOST: x\r\nAuthorization: Bearer ${KEYS.enterprise}\r\n`],
    ])('answers %s with 400', async (_label, fields) => {
      const { received } = await exchange(port, `GET /v1/pets HTTP/1.1\r\n${fields}Connection: close\r\n\r\n`);
      const response = parseResponse(received);
      expect(response?.status).toBe(400);
      expect(JSON.parse(response!.body.toString('utf8'))).toEqual({ code: 'invalid_request', message: expect.stringMatching(/./), status: 400 });
      expect(field(response!, 'content-type')).toBe('application/json; charset=utf-8');
      assertMatchesOpenApi('GET', `${store.baseUrl}/pets`, observed(response!));
    });

    it('answers an HTTP/1.1 request without Host with 400 in the Error format (HTTP/1.0 may omit it)', async () => {
      const missing = parseResponse((await exchange(port, `GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEYS.enterprise}\r\nConnection: close\r\n\r\n`)).received);
      expect(missing?.status).toBe(400);
      expect(JSON.parse(missing!.body.toString('utf8'))).toEqual({ code: 'invalid_request', message: expect.stringContaining('Host'), status: 400 });
      const old = parseResponse((await exchange(port, `GET /v1/pets HTTP/1.0\r\nAuthorization: Bearer ${KEYS.enterprise}\r\n\r\n`)).received);
      expect(old?.status).toBe(200);
    });

    it('answers an Expect other than 100-continue with 417 expectation_failed in the Error format', async () => {
      const response = parseResponse((await exchange(port, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n`)).received);
      expect(response?.status).toBe(417);
      expect(JSON.parse(response!.body.toString('utf8'))).toEqual({ code: 'expectation_failed', message: expect.stringMatching(/./), status: 417 });
    });

    it('stores nothing for a create with two Authorization headers', async () => {
      const before = (await listAll(store.client)).pets;
      const body = '{"name":"Twice","categoryId":1}';
      const request =
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.enterprise}\r\nAuthorization: Bearer ${KEYS.enterprise}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
      const response = parseResponse((await exchange(port, request)).received);
      expect(response?.status).toBe(400);
      expect((await listAll(store.client)).pets).toEqual(before);
    });
  });

  describe('rule 4: bodies are read exactly: invalid UTF-8 and disguised fractions are 400s, whole numbers pass', () => {
    const withNameBytes = (bytes: readonly number[]): Uint8Array =>
      Buffer.concat([Buffer.from('{"name":"Re'), Buffer.from(bytes), Buffer.from('x","categoryId":1}')]);

    it.each([
      ['C3 28 (a lead byte without its continuation)', [0xc3, 0x28]],
      ['C0 AF (an overlong encoding of "/")', [0xc0, 0xaf]],
      ['ED A0 80 (an encoded UTF-16 surrogate)', [0xed, 0xa0, 0x80]],
      ['F4 90 80 80 (beyond U+10FFFF)', [0xf4, 0x90, 0x80, 0x80]],
      ['FF (never valid)', [0xff]],
    ])('answers a name with the bytes %s with 400 and stores nothing', async (_label, bytes) => {
      const before = (await listAll(store.client)).pets;
      expectError(await store.client.post('/pets', { raw: withNameBytes(bytes) }), 400, 'invalid_request');
      expect((await listAll(store.client)).pets).toEqual(before);
    });

    it.each(['9007199254740990.5', '1.0000000000000000001', '2.5e0', '1e-400'])(
      'answers categoryId %s with 400 naming categoryId, never rounded, and stores nothing',
      async (categoryId) => {
        const before = (await listAll(store.client)).pets;
        const result = await store.client.post('/pets', { raw: `{"name":"Rex","categoryId":${categoryId}}` });
        expectError(result, 400, 'invalid_request', 'categoryId');
        expect((await listAll(store.client)).pets).toEqual(before);
      },
    );

    it.each([
      ['/pets', '{"name":"Rex","categoryId":1,"name":"Max"}', 'name'],
      ['/pets', '{"name":"Rex","categoryId":1,"\\u0063ategoryId":2}', 'categoryId'],
      ['/store/orders', '{"petId":1,"petId":2}', 'petId'],
    ])('answers POST %s with the body %s, which repeats a key, with 400 naming it, and stores nothing', async (target, raw, key) => {
      const before = (await listAll(store.client)).pets;
      expectError(await store.client.post(target, { raw }), 400, 'invalid_request', `"${key}"`);
      expect((await listAll(store.client)).pets).toEqual(before);
    });

    it.each(['\u200b\u200b\u200b', ' \u2060\u3164 ', '\u2800'])('answers a pet named only %j (invisible characters) with 400 naming name', async (name) => {
      const before = (await listAll(store.client)).pets;
      expectError(await store.client.post('/pets', { json: { name, categoryId: 1 } }), 400, 'invalid_request', 'name');
      expect((await listAll(store.client)).pets).toEqual(before);
    });

    it.each([
      ['3.0', 3],
      ['1e2', 100],
      ['1E+2', 100],
      ['300e-2', 3],
      ['7.000', 7],
    ])('creates a pet with categoryId %s as the whole number %i', async (categoryId, expected) => {
      const result = await store.client.post('/pets', { raw: `{"name":"Whole","categoryId":${categoryId}}` });
      expect(result.status, result.text).toBe(201);
      expect((result.body as PetBody).categoryId).toBe(expected);
      const stored = await store.client.get(`/pets/${(result.body as PetBody).id}`);
      expect((stored.body as PetBody).categoryId).toBe(expected);
    });
  });

  describe('rule 12: a body sent with a Content-Encoding other than identity is a 415 (it is never decoded, nor read as plain JSON)', () => {
    const PET = '{"name":"Coded","categoryId":1}';

    it.each(['gzip', 'br', 'deflate', 'x-gzip', 'gzip, identity', 'identity, gzip'])(
      'answers a create with Content-Encoding: %s with 415 unsupported_media_type and Accept-Encoding: identity, storing nothing',
      async (coding) => {
        const before = (await listAll(store.client)).pets;
        const result = await requestWithHeaders(store.client, 'POST', '/pets', { key: KEYS.enterprise, raw: PET, headers: { 'content-encoding': coding } });
        expectError(result, 415, 'unsupported_media_type', 'Content-Encoding');
        expect(result.headers.get('accept-encoding')).toBe('identity');
        expect((await listAll(store.client)).pets).toEqual(before);
      },
    );

    it('answers a placed and a moved order sent gzip-labelled with 415 too', async () => {
      const placed = await requestWithHeaders(store.client, 'POST', '/store/orders', { key: KEYS.enterprise, json: { petId: rex.id }, headers: { 'content-encoding': 'gzip' } });
      expectError(placed, 415, 'unsupported_media_type', 'Content-Encoding');
      const moved = await requestWithHeaders(store.staff, 'PATCH', '/store/orders/1', { key: KEYS.staff, json: { status: 'approved' }, headers: { 'content-encoding': 'gzip' } });
      expectError(moved, 415, 'unsupported_media_type', 'Content-Encoding');
    });

    it.each(['identity', 'IDENTITY', ' identity '])('creates a pet sent with Content-Encoding: %j', async (coding) => {
      const result = await requestWithHeaders(store.client, 'POST', '/pets', { key: KEYS.enterprise, raw: PET, headers: { 'content-encoding': coding } });
      expect(result.status, result.text).toBe(201);
    });
  });

  describe('rule 5: GET /v1/pets/{petId} with an id that is not a positive safe integer is a 400, at any length', () => {
    it.each([
      ['0', '0'],
      ['-1', '-1'],
      ['1.5', '1.5'],
      ['9007199254740992 (2^53)', '9007199254740992'],
      ['a 1,000-digit number', '9'.repeat(1_000)],
      ['a 10,000-digit number', `1${'0'.repeat(9_999)}`],
      ['abc', 'abc'],
    ])('answers %s with 400 invalid_request naming petId, never 404', async (_label, petId) => {
      const result = await store.client.get(`/pets/${petId}`);
      expectError(result, 400, 'invalid_request', 'petId');
    });
  });

  describe("rule 7: getPet's deprecation fields are on every answer, its 429s included", () => {
    it('sends Deprecation, Sunset and the successor link on 200, 404, 400 and on the 61st request of a free key (429)', async () => {
      const free = new HttpClient(store.baseUrl, KEYS.free);
      const ok = await free.get(`/pets/${rex.id}`);
      expect(ok.status).toBe(200);
      expectDeprecationFields(ok);
      const missing = await free.get('/pets/999999');
      expectError(missing, 404, 'not_found');
      expectDeprecationFields(missing);
      const invalid = await free.get('/pets/0');
      expectError(invalid, 400, 'invalid_request', 'petId');
      expectDeprecationFields(invalid);
      // 57 more: 60 admitted in all, the free plan's minute.
      for (let i = 0; i < 57; i++) {
        const admitted = await free.get(`/pets/${rex.id}`);
        expect(admitted.status, `request ${i + 4}`).toBe(200);
        expectDeprecationFields(admitted);
      }
      const refused = await free.get(`/pets/${rex.id}`);
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expectDeprecationFields(refused);
    });
  });

  describe('rule 10: requests pipelined before a malformed one are answered first, in order, then the error, then the connection closes', () => {
    const get = (target: string): string => `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.enterprise}\r\n\r\n`;
    const post = (json: string): string =>
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.enterprise}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
    const MALFORMED = 'G@T / HTTP/1.1\r\nHost: x\r\n\r\n';

    it('answers GET /v1/pets?limit=1 and then the malformed request behind it, written together, with 200 then 400', async () => {
      const { received, closedByServer } = await exchange(port, get('/v1/pets?limit=1') + MALFORMED);
      const [listed, refused, ...more] = parseResponses(received);
      expect(listed?.status).toBe(200);
      expect(JSON.parse(listed!.body.toString('utf8'))).toHaveLength(1);
      expectRawError(refused, 400, 'invalid_request');
      expect(more).toEqual([]);
      expect(refused!.rest.length, 'nothing follows the error').toBe(0);
      expect(closedByServer).toBe(true);
    });

    it('answers three requests (a list, a create, a read) in order before the 431 of headers over the limit', async () => {
      const oversized = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`;
      const request = get('/v1/pets?limit=2') + post('{"name":"Piped","categoryId":4}') + get(`/v1/pets/${rex.id}`) + oversized;
      const { received, closedByServer } = await exchange(port, request);
      const responses = parseResponses(received);
      expect(responses.map((response) => response.status)).toEqual([200, 201, 200, 431]);
      expect(JSON.parse(responses[1]!.body.toString('utf8'))).toMatchObject({ name: 'Piped', categoryId: 4 });
      expect(JSON.parse(responses[2]!.body.toString('utf8'))).toEqual(rex);
      expectRawError(responses[3], 431, 'headers_too_large');
      expect(closedByServer).toBe(true);
    });

    it('answers a list, then the 413 of the chunked create behind it whose chunk extension is over 16 KiB', async () => {
      const create =
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.enterprise}\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n1e;ext=${'x'.repeat(20 * 1024)}\r\n{"name":"Ext","categoryId":1}\r\n0\r\n\r\n`;
      const { received, closedByServer } = await exchange(port, get('/v1/pets?limit=1') + create);
      const responses = parseResponses(received);
      expect(responses.map((response) => response.status)).toEqual([200, 413]);
      expectRawError(responses[1], 413, 'payload_too_large');
      expect(closedByServer).toBe(true);
    });
  });
});

describe('rule 11: requests Node hands over oddly (CONNECT, Upgrade) are answered in the Error format, and the connection closes', () => {
  let edge: EdgeServer;
  beforeAll(async () => {
    edge = await startEdgeServer();
  });
  afterAll(() => edge.close());

  it.each([
    ['CONNECT at a path of the API', 405, 'method_not_allowed', `CONNECT /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${EDGE_KEY}\r\n\r\n`],
    ['CONNECT to an authority, tunnel bytes behind it', 404, 'not_found', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01\x02\x00'],
    ['CONNECT without Host', 400, 'invalid_request', 'CONNECT example.com:443 HTTP/1.1\r\n\r\n'],
  ])('answers %s with %i %s, counted like any request, then closes', async (_label, status, code, request) => {
    const { received, closedByServer } = await exchange(edge.port, request);
    const [response, ...more] = parseResponses(received);
    expectRawError(response, status, code);
    for (const name of RATE_LIMIT_FIELDS) expect(field(response!, name), name).toBeDefined();
    if (status === 405) expect(field(response!, 'allow')).toBe('GET, HEAD, POST');
    expect(more).toEqual([]);
    expect(closedByServer).toBe(true);
  });

  it('answers an Upgrade request (no protocol is switched) with Connection: close, as Node drops what was pipelined behind it', async () => {
    const get = (fields: string): string => `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${EDGE_KEY}\r\n${fields}\r\n`;
    const { received, closedByServer, elapsedMs } = await exchange(edge.port, get('Upgrade: websocket\r\nConnection: Upgrade\r\n') + get(''));
    const [response, ...more] = parseResponses(received);
    expect(response?.status).toBe(200);
    expect(field(response!, 'connection')?.toLowerCase()).toBe('close');
    // The request behind it went unanswered: the close tells the client to send it again.
    expect(more).toEqual([]);
    expect(closedByServer).toBe(true);
    expect(elapsedMs, 'closed at once, not by the keep-alive timeout').toBeLessThan(900);
  });
});

describe('rule 10 with a remote quota store: the error answer waits for every earlier answer still being decided', () => {
  let edge: EdgeServer;
  beforeAll(async () => {
    // Decisions arrive 50 ms late, as from a slow store: the malformed request is parsed long before.
    edge = await startEdgeServer({ quotas: (inner) => decidingStore(async (subject, policy) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return inner.decide(subject, policy);
    }) });
  });
  afterAll(() => edge.close());

  it('answers two GETs in order, then the 400, then closes', async () => {
    const get = (target: string): string => `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${EDGE_KEY}\r\n\r\n`;
    const { received, closedByServer } = await exchange(edge.port, `${get('/v1/pets?limit=1')}${get('/v1/nowhere')}NOT A REQUEST\r\n\r\n`);
    const responses = parseResponses(received);
    expect(responses.map((response) => response.status)).toEqual([200, 404, 400]);
    expectRawError(responses[2], 400, 'invalid_request');
    expect(closedByServer).toBe(true);
  });
});

describe("rule 7: getPet's deprecation fields are on its answers that no quota decision or handler reached", () => {
  let denying: EdgeServer;
  let broken: EdgeServer;
  let working: EdgeServer;
  beforeAll(async () => {
    working = await startEdgeServer();
    // PETSTORE_QUOTA_FALLBACK=deny with its store down: what the Redis quota store throws then.
    denying = await startEdgeServer({
      quotas: (inner) => new QuotaOutageFallback(failingStore(new StoreUnavailableError('quota store')), 'deny', inner, new SystemClock()),
    });
    broken = await startEdgeServer({ quotas: () => failingStore(new Error('a bug in the quota store')) });
  });
  afterAll(async () => {
    await denying.close();
    await broken.close();
    await working.close();
  });

  it.each(['GET', 'HEAD'])('sends them on the 503 of %s /v1/pets/1 while the quota store is down and the fallback denies', async (method) => {
    for (const client of [denying.client, new HttpClient(denying.baseUrl)]) {
      const result = await client.request(method, '/pets/1');
      expect(result.status).toBe(503);
      if (method === 'GET') expectError(result, 503, 'service_unavailable');
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expectDeprecationFields(result);
    }
  });

  it('sends them on the 500 of a quota store that fails unexpectedly, and on no other route', async () => {
    const result = await broken.client.get('/pets/1');
    expectError(result, 500, 'internal_error');
    expectDeprecationFields(result);
    const list = await broken.client.get('/pets');
    expectError(list, 500, 'internal_error');
    expect(list.headers.get('deprecation')).toBeNull();
  });

  it('sends them on the 417 of an Expect other than 100-continue, and on a 401', async () => {
    const request = (fields: string): string => `GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\n${fields}Connection: close\r\n\r\n`;
    for (const [fields, status] of [
      [`Authorization: Bearer ${EDGE_KEY}\r\nExpect: teapot\r\n`, 417],
      ['Authorization: Bearer not-a-key\r\n', 401],
    ] as const) {
      const response = parseResponse((await exchange(working.port, request(fields))).received);
      expect(response?.status).toBe(status);
      expect(field(response!, 'deprecation')).toBe('@1767225600');
      expect(field(response!, 'sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(field(response!, 'link')).toBe('</v1/pets>; rel="successor-version"');
    }
  });
});

describe('rule 6: an answer sent before the body is read closes the connection after reading at most 1 MiB more of the body', () => {
  let edge: EdgeServer;

  beforeAll(async () => {
    edge = await startEdgeServer();
    // The limited key's one request of the minute: its next ones are 429s.
    expect((await edge.client.get('/pets', { key: LIMITED_KEY })).status).toBe(200);
  });
  afterAll(() => edge.close());

  const head = (requestLine: string, fields: string): string =>
    `${requestLine} HTTP/1.1\r\nHost: x\r\n${fields}Content-Length: 50000000\r\n\r\n`;
  const JSON_TYPE = 'Content-Type: application/json\r\n';
  const CASES: readonly (readonly [number, string, string])[] = [
    [401, 'unauthorized', head('POST /v1/pets', `Authorization: Bearer not-a-key\r\n${JSON_TYPE}`)],
    [404, 'not_found', head('POST /v1/nowhere', `Authorization: Bearer ${EDGE_KEY}\r\n${JSON_TYPE}`)],
    [405, 'method_not_allowed', head('PUT /v1/pets', `Authorization: Bearer ${EDGE_KEY}\r\n${JSON_TYPE}`)],
    [413, 'payload_too_large', head('POST /v1/pets', `Authorization: Bearer ${EDGE_KEY}\r\n${JSON_TYPE}`)],
    [415, 'unsupported_media_type', head('POST /v1/pets', `Authorization: Bearer ${EDGE_KEY}\r\nContent-Type: text/plain\r\n`)],
    [429, 'rate_limited', head('POST /v1/pets', `Authorization: Bearer ${LIMITED_KEY}\r\n${JSON_TYPE}`)],
  ];

  it.each(CASES)(
    'answers %i %s to headers announcing 50,000,000 bytes, with Connection: close, closes, and reads at most 1 MiB of the body after the answer (and one socket read) however long the client writes',
    async (status, code, requestHead) => {
      const flood = await floodAfterAnswer(edge.port, requestHead);
      expectRawError(flood.response, status, code);
      expect(flood.closedByServer, 'the server closed the connection').toBe(true);
      expect(flood.bodyBytesWritten, 'the client kept writing after the answer').toBeGreaterThan(0);
      const bodyBytesRead = (await edge.bytesReadAtClose(flood.localPort)) - Buffer.byteLength(requestHead);
      // The body is sent only after the answer: the connection reads on (and throws away) up to
      // REFUSED_BODY_DRAIN.bytes of it, so the client reads its answer before the close, then
      // closes; the read that crosses the bound is at most one socket read.
      expect(bodyBytesRead).toBeGreaterThanOrEqual(0);
      expect(bodyBytesRead).toBeLessThanOrEqual(REFUSED_BODY_DRAIN.bytes + ONE_READ);
    },
  );

  // When the body arrives with the headers, the kernel hands Node's HTTP parser up to 64 KiB per
  // read (libuv's read size; Node lets no server socket lower it), and the parser has taken the
  // whole read before the headers in it are answered: one 64 KiB read before the answer, then
  // the bounded drain after it.
  it.each(CASES)(
    'reads at most one 64 KiB socket read, then 1 MiB after the answer (and one read), of a body sent with the headers (%i %s)',
    async (status, code, requestHead) => {
      const flood = await floodAfterAnswer(edge.port, requestHead, 1024 * 1024);
      expectRawError(flood.response, status, code);
      expect(flood.closedByServer).toBe(true);
      const bytesRead = await edge.bytesReadAtClose(flood.localPort);
      expect(bytesRead).toBeGreaterThanOrEqual(Buffer.byteLength(requestHead));
      expect(bytesRead - Buffer.byteLength(requestHead)).toBeLessThanOrEqual(ONE_READ + REFUSED_BODY_DRAIN.bytes + ONE_READ);
    },
  );

  it('reads at most a request buffer (highWaterMark) and one 64 KiB read of a body sent with the headers while a remote quota store decides, then the bounded drain', async () => {
    // A quota store that answers asynchronously, as Redis does: while it decides, Node parses on
    // and buffers the body in the request until its highWaterMark (16 KiB on Node 20), then stops
    // reading (pauses the socket). This one decides only once Node has stopped: the worst case.
    let stoppedReading: Promise<unknown> = Promise.resolve();
    const remote = await startEdgeServer({
      onConnection: (socket) => {
        stoppedReading = once(socket, 'pause');
        // A connection that fails before pausing rejects this; the request on it then fails visibly.
        stoppedReading.catch(() => {});
      },
      quotas: (inner) => decidingStore((subject, policy) => stoppedReading.then(() => inner.decide(subject, policy))),
    });
    try {
      const requestHead = head('POST /v1/pets', `Authorization: Bearer not-a-key\r\n${JSON_TYPE}`);
      const flood = await floodAfterAnswer(remote.port, requestHead, 1024 * 1024);
      expectRawError(flood.response, 401, 'unauthorized');
      expect(flood.closedByServer).toBe(true);
      const bodyBytesRead = (await remote.bytesReadAtClose(flood.localPort)) - Buffer.byteLength(requestHead);
      expect(bodyBytesRead).toBeLessThanOrEqual(getDefaultHighWaterMark(false) + ONE_READ + REFUSED_BODY_DRAIN.bytes + ONE_READ);
    } finally {
      await remote.close();
    }
  });
});

describe('rule 8: a 503 carries Retry-After, and the rate-limit fields whenever a quota decision was made', () => {
  const downRepository = failingRepository(() => new StoreUnavailableError('pet store'));
  let edge: EdgeServer;
  let quotaFailure: 'throws' | 'rejects' = 'throws';
  let quotaDown: EdgeServer;

  beforeAll(async () => {
    edge = await startEdgeServer({ repository: downRepository });
    quotaDown = await startEdgeServer({
      quotas: () =>
        decidingStore(() => {
          const error = new StoreUnavailableError('quota store');
          if (quotaFailure === 'throws') throw error;
          return Promise.reject(error);
        }),
    });
  });
  afterAll(async () => {
    await edge.close();
    await quotaDown.close();
  });

  it.each([
    ['GET', '/pets'],
    ['GET', '/pets/1'],
    ['HEAD', '/pets/1'],
    ['POST', '/pets'],
  ])('answers %s %s over an unavailable pet store with 503, Retry-After and the rate-limit fields', async (method, target) => {
    const result = await edge.client.request(method, target, method === 'POST' ? { json: { name: 'Rex', categoryId: 1 } } : {});
    if (method === 'HEAD') expect(result.status).toBe(503);
    else expectError(result, 503, 'service_unavailable');
    expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (const name of RATE_LIMIT_FIELDS) expect(result.headers.get(name), name).not.toBeNull();
    if (target === '/pets/1') expectDeprecationFields(result);
  });

  it.each(['throws', 'rejects'] as const)(
    'answers 503 with Retry-After and no rate-limit fields when the quota store %s StoreUnavailableError',
    async (failure) => {
      quotaFailure = failure;
      for (const [client, target] of [
        [quotaDown.client, '/pets'],
        [new HttpClient(quotaDown.baseUrl), '/openapi.json'],
      ] as const) {
        const result = await client.get(target);
        expectError(result, 503, 'service_unavailable');
        expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        for (const name of RATE_LIMIT_FIELDS) expect(result.headers.get(name), `${target}: ${name}`).toBeNull();
      }
    },
  );
});

describe('rule 9: an unexpected failure is a 500 internal_error that discloses nothing, and is logged', () => {
  const SECRET = 'secret detail at /src/x.ts:12';
  const logged: unknown[] = [];
  let failure: Error;
  let edge: EdgeServer;

  beforeAll(async () => {
    const repository = failingRepository(() => (failure = new Error(SECRET)));
    edge = await startEdgeServer({ repository, logError: (_message, error) => logged.push(error) });
  });
  afterAll(() => edge.close());

  it.each([
    ['GET', '/pets'],
    ['GET', '/pets/1'],
    ['POST', '/pets'],
  ])('answers %s %s with 500 without stack, file path or message, and passes the error to logError', async (method, target) => {
    logged.length = 0;
    const result = await edge.client.request(method, target, method === 'POST' ? { json: { name: 'Rex', categoryId: 1 } } : {});
    expectError(result, 500, 'internal_error');
    expect(result.text).not.toContain('secret');
    expect(result.text).not.toContain('/src/x.ts');
    expect(result.text).not.toContain('x.ts:12');
    expect(result.text).not.toContain(failure.stack!.split('\n')[1]!.trim());
    expect(logged).toEqual([failure]);
  });
});
