/**
 * express 5 with this service's `rateLimitMiddleware` in front of `GET /hello`: one exact
 * sliding-window rule of BENCH_LIMIT per minute, no ban, on a MemoryQuotaStore or a
 * RedisQuotaStore (BENCH_STORE).
 */
import express from 'express';
import { rateLimitMiddleware } from '../../src/adapters/http/limiter/rate-limit-middleware.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import { HELLO, redisOf, serveExpress, serverSettings, subjectOf } from './common.js';
import { ownStore } from './own-store.js';

const settings = serverSettings();
const redis = await redisOf(settings);
const limiter = createRateLimiter({ rules: [{ name: 'minute', limit: settings.limit, windowMs: settings.windowMs }], store: ownStore(settings, redis) });

const app = express();
app.get('/hello', rateLimitMiddleware({ limiter, key: (req) => subjectOf(req.headers) }), (_req, res) => {
  res.json(HELLO);
});

serveExpress(app, redis);
