/**
 * The fastify reference: fastify 5 with @fastify/rate-limit registered for every route, in
 * front of `GET /hello`, BENCH_LIMIT per minute in one fixed window, on the plugin's in-memory
 * store or its Redis store (BENCH_STORE) over the same ioredis client as this service's store.
 */
import rateLimit from '@fastify/rate-limit';
import Fastify from 'fastify';
import { HELLO, announce, portOf, redisOf, serverSettings, stopOnSigterm, subjectOf } from './common.js';

const settings = serverSettings();
const redis = await redisOf(settings);

const app = Fastify({ logger: false });
await app.register(rateLimit, {
  max: settings.limit,
  timeWindow: settings.windowMs,
  keyGenerator: (request) => subjectOf(request.headers),
  ...(redis === undefined ? {} : { redis, nameSpace: `${settings.redisPrefix}frl:` }),
});
app.get('/hello', async () => HELLO);

await app.listen({ port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1' });
announce(portOf(app.server.address()));
stopOnSigterm(() => app.close(), redis);
