/**
 * What the four servers of the middleware bench share: their settings from the environment,
 * whom a request counts against, the answer of `GET /hello`, the Redis client, and how they
 * announce themselves and stop. Each server is one framework and one limiter, on the store
 * named by BENCH_STORE.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Server } from 'node:net';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';

export type StoreName = 'memory' | 'redis';

export interface ServerSettings {
  readonly store: StoreName;
  /** Requests per window per subject. */
  readonly limit: number;
  readonly windowMs: number;
  readonly redisUrl: string;
  /** Every Redis key the server's limiter writes starts with it. */
  readonly redisPrefix: string;
}

/** BENCH_STORE (memory), BENCH_LIMIT (1e9: nothing is refused under load), REDIS_URL, BENCH_REDIS_PREFIX (required with Redis). */
export const serverSettings = (): ServerSettings => {
  const store = process.env['BENCH_STORE'] ?? 'memory';
  if (store !== 'memory' && store !== 'redis') throw new Error(`BENCH_STORE must be memory or redis, not ${store}`);
  const limit = Number(process.env['BENCH_LIMIT'] ?? 1e9);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error('BENCH_LIMIT must be a positive integer');
  const redisPrefix = process.env['BENCH_REDIS_PREFIX'] ?? '';
  if (store === 'redis' && !/^mw-bench:[0-9a-f]+:/.test(redisPrefix)) throw new Error('BENCH_REDIS_PREFIX must be the bench run\'s own mw-bench:<hex>: prefix');
  return { store, limit, windowMs: 60_000, redisUrl: process.env['REDIS_URL'] || 'redis://127.0.0.1:6379', redisPrefix };
};

/** The header naming the subject a request counts against; without it, every request counts against one fixed subject. */
export const SUBJECT_HEADER = 'x-bench-key';

/** One fixed subject by default (all the load on one hot key), another when the exactness check names one. */
export const subjectOf = (headers: IncomingHttpHeaders): string => {
  const named = headers[SUBJECT_HEADER];
  return typeof named === 'string' && named !== '' ? named : 'bench';
};

/** The body of every admitted `GET /hello`. */
export const HELLO = { hello: 'world' } as const;

/**
 * The same client for every limiter on Redis, this service's own (no auto-pipelining, fail-fast
 * settings), so that the client is not what the comparison measures.
 */
export const redisOf = async (settings: ServerSettings): Promise<Redis | undefined> =>
  settings.store === 'redis' ? createRedisClient({ url: settings.redisUrl }) : undefined;

/** The launcher reads this line on stderr. */
export const announce = (port: number): void => {
  console.error(`listening on http://127.0.0.1:${port}`);
};

/** On SIGTERM: close the server, then the Redis client, then exit. */
export const stopOnSigterm = (closeServer: () => Promise<void>, redis: Redis | undefined): void => {
  process.on('SIGTERM', () => {
    closeServer()
      .then(async () => {
        await redis?.quit();
      })
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
};

/** The port a listening node:http server got. */
export const portOf = (address: ReturnType<Server['address']>): number => {
  if (address === null || typeof address === 'string') throw new Error('the server listens on no TCP port');
  return address.port;
};

/** Serves an express app on PORT (0: any) at 127.0.0.1, announces it, and on SIGTERM closes it, then Redis. */
export const serveExpress = (app: Express, redis: Redis | undefined): void => {
  const server = app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => announce(portOf(server.address())));
  stopOnSigterm(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    redis,
  );
};
