/**
 * The peer: what one would build instead with fastify 5 and @fastify/rate-limit. The same
 * three operations under /v1, bearer keys held as SHA-256 digests and mapped to plans, a
 * per-key limit with X-RateLimit-* headers on the plugin's in-memory store, anonymous callers
 * limited per address, JSON schemas validating input and serialising output.
 * Idiomatic defaults, except the store's LRU, raised from 5,000 keys so that 10,000 keys keep
 * their counts instead of being forgotten.
 *
 * Less than this service does, which favours the peer: one window per key (the plugin's fixed
 * window) instead of two sliding windows, no ban, no IETF RateLimit fields.
 */
import type { AddressInfo } from 'node:net';
import rateLimit from '@fastify/rate-limit';
import Fastify from 'fastify';
import { addPet, all, ANONYMOUS_PER_MINUTE, byStatus, digest, firstAfter, nextLink, perMinuteOfDigest, STATUSES, type Pet, type Status } from './pet-shelf.js';

declare module 'fastify' {
  interface FastifyRequest {
    keyDigest: string | undefined;
    perMinute: number;
  }
}

const petSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    categoryId: { type: 'integer' },
    status: { type: 'string' },
  },
} as const;
const errorSchema = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' } },
} as const;

const app = Fastify({ logger: false });
app.decorateRequest('keyDigest', undefined);
app.decorateRequest('perMinute', ANONYMOUS_PER_MINUTE);

app.addHook('onRequest', (request, _reply, done) => {
  const header = request.headers.authorization;
  if (header !== undefined && /^bearer /i.test(header)) {
    const keyDigest = digest(header.slice(7).trim());
    const perMinute = perMinuteOfDigest.get(keyDigest);
    if (perMinute !== undefined) {
      request.keyDigest = keyDigest;
      request.perMinute = perMinute;
    }
  }
  done();
});

await app.register(rateLimit, {
  timeWindow: 60_000,
  max: (request) => request.perMinute,
  keyGenerator: (request) => request.keyDigest ?? request.ip,
  cache: 50_000,
});

app.addHook('preValidation', (request, reply, done) => {
  if (request.keyDigest !== undefined) return done();
  reply.code(401).header('www-authenticate', 'Bearer').send({ code: 'unauthorized', message: 'A valid API key is required.', status: 401 });
});

app.get<{ Querystring: { limit: number; status?: Status; cursor?: string } }>(
  '/v1/pets',
  {
    schema: {
      querystring: {
        type: 'object',
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          status: { type: 'string', enum: STATUSES },
          cursor: { type: 'string', pattern: '^[0-9]{1,15}$' },
        },
        additionalProperties: false,
      },
      response: { 200: { type: 'array', items: petSchema } },
    },
  },
  async (request, reply) => {
    const { limit, status, cursor } = request.query;
    const pets = status === undefined ? all : byStatus.get(status)!;
    const start = firstAfter(pets, cursor === undefined ? 0 : Number(cursor));
    const page = pets.slice(start, start + limit);
    if (start + limit < pets.length) reply.header('link', nextLink(limit, status, page.at(-1)!.id));
    return page;
  },
);

app.post<{ Body: Omit<Pet, 'id'> }>(
  '/v1/pets',
  {
    schema: {
      body: {
        type: 'object',
        required: ['name', 'categoryId'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          categoryId: { type: 'integer', minimum: 1 },
          status: { type: 'string', enum: STATUSES, default: 'available' },
        },
        additionalProperties: false,
      },
      response: { 201: petSchema },
    },
  },
  async (request, reply) => {
    const pet: Pet = { id: all.length + 1, ...request.body };
    addPet(pet);
    reply.code(201).header('location', `/v1/pets/${pet.id}`);
    return pet;
  },
);

app.get<{ Params: { petId: number } }>(
  '/v1/pets/:petId',
  {
    schema: {
      params: { type: 'object', properties: { petId: { type: 'integer', minimum: 1 } } },
      response: { 200: petSchema, 404: errorSchema },
    },
  },
  async (request, reply) => {
    const pet = all[request.params.petId - 1];
    if (pet !== undefined) return pet;
    reply.code(404);
    return { code: 'not_found', message: 'No such pet.', status: 404 };
  },
);

await app.listen({ port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1' });
console.error(`listening on http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`);
process.on('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
