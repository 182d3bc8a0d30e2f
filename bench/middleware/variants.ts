/* The eight servers of the middleware bench: two frameworks, two limiters, two stores. */
import type { StoreName } from './common.js';

export type Framework = 'express' | 'fastify';
export type LimiterKind = 'own' | 'reference';

export interface Variant {
  /** e.g. `express-own-redis`. */
  readonly id: string;
  readonly framework: Framework;
  readonly limiter: LimiterKind;
  readonly store: StoreName;
  readonly label: string;
  /** Compiled script of dist/bench/middleware/. */
  readonly script: string;
}

const LIMITER_LABELS: Readonly<Record<Framework, Readonly<Record<LimiterKind, string>>>> = {
  express: { own: 'express + rateLimitMiddleware', reference: 'express + express-rate-limit' },
  fastify: { own: 'fastify + rateLimitHook', reference: 'fastify + @fastify/rate-limit' },
};

const STORE_LABELS: Readonly<Record<Framework, Readonly<Record<LimiterKind, Readonly<Record<StoreName, string>>>>>> = {
  express: {
    own: { memory: 'MemoryQuotaStore', redis: 'RedisQuotaStore' },
    reference: { memory: 'MemoryStore', redis: 'rate-limit-redis' },
  },
  fastify: {
    own: { memory: 'MemoryQuotaStore', redis: 'RedisQuotaStore' },
    reference: { memory: 'in-memory', redis: 'Redis' },
  },
};

export const variants = (stores: readonly StoreName[]): Variant[] => {
  const all: Variant[] = [];
  for (const store of stores) {
    for (const framework of ['express', 'fastify'] as const) {
      for (const limiter of ['own', 'reference'] as const) {
        all.push({
          id: `${framework}-${limiter}-${store}`,
          framework,
          limiter,
          store,
          label: `${LIMITER_LABELS[framework][limiter]} (${STORE_LABELS[framework][limiter][store]})`,
          script: `${framework}-${limiter}.js`,
        });
      }
    }
  }
  return all;
};
