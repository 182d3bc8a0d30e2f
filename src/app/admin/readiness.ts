import { countersInRedisApart, type PetStoreConfig } from '../config/config.js';
import type { StoreStatus } from './store-probes.js';

/** Readiness as the stores make it: 200 when `ready`, else 503; `body` says why. */
export interface StoreReadiness {
  readonly ready: boolean;
  readonly body: ReadinessBody;
}

/**
 * The one shape of /readyz, with one worker or many: `stores` probed; `degraded`, the stores
 * down that the outage policy serves the API without; `failed`, those that stop it (each
 * `{store, reason}`); with workers, how many listen.
 */
export type ReadinessBody = {
  readonly status: 'ready' | 'degraded' | 'unavailable';
  readonly stores: readonly string[];
  readonly degraded?: readonly { readonly store: string; readonly reason: string; readonly detail?: string; readonly fallback: string }[];
  readonly failed?: readonly { readonly store: string; readonly reason: string; readonly detail?: string }[];
  readonly workers?: { readonly listening: number; readonly expected: number };
};

export interface ReadinessPolicy {
  /** The stores the API is served without while they are down, and what serves in their place. */
  readonly fallbacks: ReadonlyMap<string, string>;
  /** PETSTORE_READY_ON_DEGRADED=ready: 200 while only such stores are down. */
  readonly readyWhenDegraded: boolean;
}

/**
 * With `postgres`, Redis holds only quota counters, strikes and bans, and PETSTORE_QUOTA_FALLBACK
 * `local` or `allow` decides without it: the API is served while it is down. Every other store
 * holds records (`redis` holds both), and `deny` refuses every request without Redis.
 */
export const readinessPolicyOf = (config: Pick<PetStoreConfig, 'store' | 'quotaFallback' | 'readyOnDegraded'>): ReadinessPolicy => ({
  fallbacks:
    countersInRedisApart(config.store) && config.quotaFallback !== 'deny' ? new Map([['redis', `PETSTORE_QUOTA_FALLBACK=${config.quotaFallback}`]]) : new Map(),
  readyWhenDegraded: config.readyOnDegraded === 'ready',
});

/** Readiness from what the probes found: ready while every store answers, or while those that do not are served without. */
export function readinessOf(stores: readonly StoreStatus[], policy: ReadinessPolicy): StoreReadiness {
  const names = stores.map(({ store }) => store);
  const down = stores.filter((status) => !status.up);
  if (down.length === 0) return { ready: true, body: { status: 'ready', stores: names } };
  const reasonOf = ({ store, reason, detail }: StoreStatus) => ({ store, reason: reason ?? 'not answering', ...(detail === undefined ? {} : { detail }) });
  if (policy.readyWhenDegraded && down.every(({ store }) => policy.fallbacks.has(store))) {
    return { ready: true, body: { status: 'degraded', stores: names, degraded: down.map((status) => ({ ...reasonOf(status), fallback: policy.fallbacks.get(status.store) ?? '' })) } };
  }
  return { ready: false, body: { status: 'unavailable', stores: names, failed: down.map(reasonOf) } };
}
