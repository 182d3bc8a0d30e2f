import type { PetStoreMetrics } from './metrics.js';
import { readinessOf, type ReadinessPolicy } from './readiness.js';
import { checkStores, type StoreProbe, type StoreStatus } from './store-probes.js';

/** A readiness probe gives each store this long to answer PING. */
export const READINESS_DEADLINE_MS = 1_000;

/** What /readyz answers, shutdown aside: 200 when `ready`, else 503; `body` says why (readiness.ts: its shape). */
export interface Readiness {
  readonly ready: boolean;
  readonly body: Readonly<Record<string, unknown>>;
}

/** What the admin listener serves: one server process's figures, or a supervisor's for all its workers. */
export interface AdminSource {
  readiness(): Promise<Readiness>;
  /** The Prometheus text of GET /metrics. */
  metrics(): Promise<string>;
  readonly contentType: string;
}

/** Pings every store, each given READINESS_DEADLINE_MS; each answer is recorded in the store gauges. */
export async function probeStores(metrics: PetStoreMetrics | null, probes: readonly StoreProbe[]): Promise<StoreStatus[]> {
  const stores = await checkStores(probes, READINESS_DEADLINE_MS);
  metrics?.storesFound(stores);
  return stores;
}

/** One server process: its own stores and metrics. */
export const processAdminSource = (metrics: PetStoreMetrics, probes: readonly StoreProbe[], policy: ReadinessPolicy): AdminSource => ({
  readiness: async () => readinessOf(await probeStores(metrics, probes), policy),
  metrics: () => metrics.text(),
  contentType: metrics.registry.contentType,
});
