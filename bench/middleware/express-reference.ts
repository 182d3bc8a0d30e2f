/**
 * The express reference: express 5 with express-rate-limit in front of `GET /hello`, BENCH_LIMIT
 * per minute in one fixed window, on its own MemoryStore or on rate-limit-redis's RedisStore
 * (BENCH_STORE) over the same ioredis client as this service's store. Headers as close to
 * this service's as the library writes them: `X-RateLimit-*` and the draft-8 `RateLimit` and
 * `RateLimit-Policy` fields.
 */
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { HELLO, redisOf, serveExpress, serverSettings, subjectOf } from './common.js';

const settings = serverSettings();
const redis = await redisOf(settings);
const store =
  redis === undefined
    ? undefined
    : new RedisStore({
        sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>,
        prefix: `${settings.redisPrefix}erl:`,
      });

const limit = rateLimit({
  windowMs: settings.windowMs,
  limit: settings.limit,
  standardHeaders: 'draft-8',
  legacyHeaders: true,
  keyGenerator: (req) => subjectOf(req.headers),
  ...(store === undefined ? {} : { store }),
});

const app = express();
app.get('/hello', limit, (_req, res) => {
  res.json(HELLO);
});

serveExpress(app, redis);
