/**
 * fastify 5 with this service's `rateLimitHook` as an `onRequest` hook of every route, in
 * front of `GET /hello`: one exact sliding-window rule of BENCH_LIMIT per minute, no ban, on
 * a MemoryQuotaStore or a RedisQuotaStore (BENCH_STORE).
 */
import Fastify from 'fastify';
import { rateLimitHook } from '../../src/adapters/http/limiter/rate-limit-middleware.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import { HELLO, announce, portOf, redisOf, serverSettings, stopOnSigterm, subjectOf } from './common.js';
import { ownStore } from './own-store.js';

const settings = serverSettings();
const redis = await redisOf(settings);
const limiter = createRateLimiter({ rules: [{ name: 'minute', limit: settings.limit, windowMs: settings.windowMs }], store: ownStore(settings, redis) });

const app = Fastify({ logger: false });
app.addHook('onRequest', rateLimitHook({ limiter, key: (req) => subjectOf(req.headers) }));
app.get('/hello', async () => HELLO);

await app.listen({ port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1' });
announce(portOf(app.server.address()));
stopOnSigterm(() => app.close(), redis);
