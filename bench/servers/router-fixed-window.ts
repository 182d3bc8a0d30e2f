/**
 * The hand-written reference: node:http routed by find-my-way, what one would write without a
 * framework. The same three operations under /v1 as the fastify peer, bearer keys held as
 * SHA-256 digests, one fixed window per key (anonymous callers per address) with
 * X-RateLimit-* headers and Retry-After, input checked by hand, JSON.stringify for output.
 *
 * Less than this service does: one fixed window instead of two sliding ones, no ban, no IETF
 * RateLimit fields, no request ids, no deprecation fields.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import FindMyWay from 'find-my-way';
import { addPet, all, ANONYMOUS_PER_MINUTE, byStatus, digest, firstAfter, nextLink, perMinuteOfDigest, STATUSES, type Pet, type Status } from './pet-shelf.js';

const WINDOW_MS = 60_000;
const MAX_BODY_BYTES = 16_384;

interface Window {
  start: number;
  count: number;
}
const windows = new Map<string, Window>();

const send = (res: ServerResponse, status: number, body: unknown, headers: (string | number)[] = []): void => {
  const json = JSON.stringify(body);
  res.writeHead(status, ['content-type', 'application/json', 'content-length', Buffer.byteLength(json), ...headers]);
  res.end(json);
};
const fail = (res: ServerResponse, status: number, code: string, message: string, headers: (string | number)[] = []): void =>
  send(res, status, { code, message, status }, headers);

/** Counts the request in its subject's current window; false once the window's limit is spent (answered 429). */
const admitted = (subject: string, limit: number, res: ServerResponse): boolean => {
  const now = Date.now();
  const start = now - (now % WINDOW_MS);
  let window = windows.get(subject);
  if (window === undefined || window.start !== start) windows.set(subject, (window = { start, count: 0 }));
  window.count += 1;
  const resetSeconds = Math.ceil((start + WINDOW_MS - now) / 1_000);
  res.setHeader('x-ratelimit-limit', limit);
  res.setHeader('x-ratelimit-remaining', Math.max(0, limit - window.count));
  res.setHeader('x-ratelimit-reset', resetSeconds);
  if (window.count <= limit) return true;
  fail(res, 429, 'rate_limited', 'Too many requests.', ['retry-after', resetSeconds]);
  return false;
};

/** The key's digest when the request carries a known key; anonymous requests are limited per address, then refused. */
const authenticated = (req: IncomingMessage, res: ServerResponse): boolean => {
  const header = req.headers.authorization;
  const keyDigest = header !== undefined && /^bearer /i.test(header) ? digest(header.slice(7).trim()) : undefined;
  const perMinute = keyDigest === undefined ? undefined : perMinuteOfDigest.get(keyDigest);
  if (keyDigest === undefined || perMinute === undefined) {
    if (admitted(`addr:${req.socket.remoteAddress ?? ''}`, ANONYMOUS_PER_MINUTE, res)) {
      fail(res, 401, 'unauthorized', 'A valid API key is required.', ['www-authenticate', 'Bearer']);
    }
    return false;
  }
  return admitted(keyDigest, perMinute, res);
};

const isStatus = (value: unknown): value is Status => STATUSES.includes(value as Status);
const DIGITS = /^[0-9]{1,15}$/;

const router = FindMyWay({ defaultRoute: (_req, res) => fail(res, 404, 'not_found', 'No such resource.') });

router.on('GET', '/v1/pets', (req, res, _params, _store, query) => {
  if (!authenticated(req, res)) return;
  const { limit = '20', status, cursor = '0', ...unknown } = query as Record<string, string | undefined>;
  if (Object.keys(unknown).length > 0) return fail(res, 400, 'invalid_request', 'Unknown query parameter.');
  const size = DIGITS.test(limit) ? Number(limit) : 0;
  if (size < 1 || size > 100) return fail(res, 400, 'invalid_request', 'limit must be 1..100.');
  if (status !== undefined && !isStatus(status)) return fail(res, 400, 'invalid_request', 'Unknown status.');
  if (!DIGITS.test(cursor)) return fail(res, 400, 'invalid_request', 'Bad cursor.');
  const pets = status === undefined ? all : (byStatus.get(status) ?? []);
  const start = firstAfter(pets, Number(cursor));
  const page = pets.slice(start, start + size);
  send(res, 200, page, start + size < pets.length ? ['link', nextLink(size, status, page.at(-1)!.id)] : []);
});

router.on('POST', '/v1/pets', (req, res) => {
  if (!authenticated(req, res)) return;
  const chunks: Buffer[] = [];
  let length = 0;
  req.on('data', (chunk: Buffer) => {
    length += chunk.length;
    if (length <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    if (length > MAX_BODY_BYTES) return fail(res, 413, 'payload_too_large', 'Body too large.');
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return fail(res, 400, 'invalid_request', 'Body is not JSON.');
    }
    const { name, categoryId, status = 'available', ...rest } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const valid =
      typeof name === 'string' && name.length >= 1 && name.length <= 100 && Number.isSafeInteger(categoryId) && (categoryId as number) >= 1 && isStatus(status);
    if (!valid || Object.keys(rest).length > 0) return fail(res, 400, 'invalid_request', 'Invalid pet.');
    const pet: Pet = { id: all.length + 1, name, categoryId: categoryId as number, status };
    addPet(pet);
    send(res, 201, pet, ['location', `/v1/pets/${pet.id}`]);
  });
});

router.on('GET', '/v1/pets/:petId', (req, res, params) => {
  if (!authenticated(req, res)) return;
  const id = params['petId'] ?? '';
  const pet = DIGITS.test(id) ? all[Number(id) - 1] : undefined;
  if (pet === undefined) return fail(res, 404, 'not_found', 'No such pet.');
  send(res, 200, pet);
});

const server = createServer((req, res) => {
  router.lookup(req, res);
});

server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  console.error(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
