/**
 * express 5 with this service's `rateLimitMiddleware` in front of `GET /hello`: one exact
 * sliding-window rule of BENCH_LIMIT per minute, no ban, on a MemoryQuotaStore or a
 * RedisQuotaStore (BENCH_STORE).
 */
import express from 'express';
import { rateLimitMiddleware } from '../../src/adapters/http/limiter/rate-limit-middleware.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import { HELLO, announce, portOf, redisOf, serverSettings, stopOnSigterm, subjectOf } from './common.js';
import { ownStore } from './own-store.js';

const settings = serverSettings();
const redis = await redisOf(settings);
const limiter = createRateLimiter({ rules: [{ name: 'minute', limit: settings.limit, windowMs: settings.windowMs }], store: ownStore(settings, redis) });

const app = express();
app.get('/hello', rateLimitMiddleware({ limiter, key: (req) => subjectOf(req.headers) }), (_req, res) => {
  res.json(HELLO);
});

const server = app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => announce(portOf(server.address())));
stopOnSigterm(
  () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  redis,
);
