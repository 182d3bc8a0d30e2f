/**
 * The four limiters of the accuracy benchmark, each behind one function: does this request of
 * `subject` pass? Each is called directly where the library allows it (its own check, or its
 * middleware handed a request and a response of our own), never over a socket: exactness is
 * about decisions, and a socket would only add noise to their times.
 */
import rateLimitPlugin from '@fastify/rate-limit';
import type { Request, Response } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import Fastify from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { createRateLimiter } from '../../src/domain/quota/rate-limiter.js';
import type { Clock } from '../../src/ports/clock.js';

export type StoreName = 'memory' | 'redis';
export type LimiterId = 'own' | 'express-rate-limit' | 'fastify-rate-limit' | 'rate-limiter-flexible';

export interface LimiterSettings {
  readonly store: StoreName;
  /** Requests per window per subject. */
  readonly limit: number;
  readonly windowMs: number;
  /** This instance's client; the instances of one run share `prefix`. */
  readonly redis?: Redis;
  /** Every Redis key the limiter writes starts with it. */
  readonly prefix: string;
  /**
   * The clock of a limiter that takes one (this service's): on the memory store it decides; on
   * Redis, a driven clock replaces the Redis server's TIME. Absent on Redis: the server's TIME.
   */
  readonly clock?: Clock;
}

/** One instance of a limiter. */
export interface Instance {
  /** True: admitted; false: refused. Rejects only when the store fails. */
  check(subject: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface LimiterKind {
  readonly id: LimiterId;
  readonly label: string;
  /** How it counts, as its documentation says. */
  readonly algorithm: string;
  /** Labels of its stores. */
  readonly stores: Readonly<Record<StoreName, string>>;
  /** Whether a clock of ours decides on the memory store; the peers read Date.now() themselves. */
  readonly takesClock: boolean;
  create(settings: LimiterSettings): Promise<Instance>;
}

const redisOf = (settings: LimiterSettings): Redis => {
  if (settings.redis === undefined) throw new Error('a Redis store needs a client');
  return settings.redis;
};

const own: LimiterKind = {
  id: 'own',
  label: 'createRateLimiter (this service)',
  algorithm: 'sliding window, 60 sub-windows',
  stores: { memory: 'MemoryQuotaStore', redis: 'RedisQuotaStore' },
  takesClock: true,
  create: async (settings) => {
    const clock = settings.clock ?? { now: () => Date.now() };
    const rules = [{ name: 'window', limit: settings.limit, windowMs: settings.windowMs }];
    if (settings.store === 'memory') {
      const limiter = createRateLimiter({ rules, store: new MemoryQuotaStore(clock) });
      return { check: async (subject) => limiter.check(subject).allowed, close: async () => {} };
    }
    const store = new RedisQuotaStore(redisOf(settings), { prefix: `${settings.prefix}own:`, ...(settings.clock === undefined ? {} : { time: settings.clock }) });
    const limiter = createRateLimiter({ rules, store });
    return { check: async (subject) => (await limiter.check(subject)).allowed, close: async () => {} };
  },
};

/** The little of a response express-rate-limit's middleware touches when its headers are off. */
class HeadlessResponse {
  headersSent = false;
  setHeader(): this {
    return this;
  }
  once(): this {
    return this;
  }
}

const expressRateLimit: LimiterKind = {
  id: 'express-rate-limit',
  label: 'express-rate-limit',
  algorithm: 'fixed window from the first hit',
  stores: { memory: 'MemoryStore', redis: 'rate-limit-redis' },
  takesClock: false,
  create: async (settings) => {
    let store: Store | undefined;
    if (settings.store === 'redis') {
      const redis = redisOf(settings);
      store = new RedisStore({ sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>, prefix: `${settings.prefix}erl:` });
    }
    // The middleware itself, handed a request and a response of our own: next() is an admission, the handler a refusal.
    const middleware = rateLimit({
      windowMs: settings.windowMs,
      limit: settings.limit,
      standardHeaders: false,
      legacyHeaders: false,
      validate: false,
      keyGenerator: (request) => String(request.headers['x-bench-key']),
      handler: (_request, response) => {
        (response as unknown as { refuse: () => void }).refuse();
      },
      ...(store === undefined ? {} : { store }),
    });
    return {
      check: (subject) =>
        new Promise<boolean>((resolve, reject) => {
          const request = { headers: { 'x-bench-key': subject }, originalUrl: '/hello', ip: '127.0.0.1', method: 'GET' };
          const response = Object.assign(new HeadlessResponse(), { refuse: () => resolve(false) });
          void middleware(request as unknown as Request, response as unknown as Response, (error?: unknown) => {
            if (error === undefined) resolve(true);
            else reject(error instanceof Error ? error : new Error(String(error)));
          });
        }),
      close: async () => {},
    };
  },
};

const fastifyRateLimit: LimiterKind = {
  id: 'fastify-rate-limit',
  label: '@fastify/rate-limit',
  algorithm: 'fixed window from the first hit',
  stores: { memory: 'in-memory', redis: 'Redis' },
  takesClock: false,
  create: async (settings) => {
    // A plugin only: a fastify app of one route, asked in process by inject() (no socket).
    const app = Fastify({ logger: false });
    await app.register(rateLimitPlugin, {
      max: settings.limit,
      timeWindow: settings.windowMs,
      keyGenerator: (request) => String(request.headers['x-bench-key']),
      ...(settings.store === 'redis' ? { redis: redisOf(settings), nameSpace: `${settings.prefix}frl:`, skipOnError: false } : {}),
    });
    app.get('/hello', async () => ({ hello: 'world' }));
    await app.ready();
    return {
      check: async (subject) => {
        const { statusCode } = await app.inject({ method: 'GET', url: '/hello', headers: { 'x-bench-key': subject } });
        if (statusCode === 200) return true;
        if (statusCode === 429) return false;
        throw new Error(`@fastify/rate-limit answered ${statusCode}`);
      },
      close: () => app.close(),
    };
  },
};

const rateLimiterFlexible: LimiterKind = {
  id: 'rate-limiter-flexible',
  label: 'rate-limiter-flexible',
  algorithm: 'fixed window from the first hit',
  stores: { memory: 'RateLimiterMemory', redis: 'RateLimiterRedis' },
  takesClock: false,
  create: async (settings) => {
    // Its duration is in seconds: Redis's EX takes whole ones.
    const options = { points: settings.limit, duration: settings.windowMs / 1000 };
    const limiter =
      settings.store === 'memory' ? new RateLimiterMemory(options) : new RateLimiterRedis({ ...options, storeClient: redisOf(settings), keyPrefix: `${settings.prefix}rlf` });
    return {
      check: (subject) =>
        limiter.consume(subject).then(
          () => true,
          (refusal: unknown) => {
            // A refusal rejects with a RateLimiterRes, a store failure with an Error.
            if (refusal instanceof RateLimiterRes) return false;
            throw refusal instanceof Error ? refusal : new Error(String(refusal));
          },
        ),
      close: async () => {},
    };
  },
};

export const LIMITERS: readonly LimiterKind[] = [own, expressRateLimit, fastifyRateLimit, rateLimiterFlexible];
