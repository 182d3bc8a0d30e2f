import type { PetStoreMetrics } from './metrics.js';
import { checkStores, type StoreProbe } from './store-probes.js';

/** A readiness probe gives each store this long to answer PING. */
export const READINESS_DEADLINE_MS = 1_000;

/** What /readyz answers, shutdown aside: 200 when `ready`, else 503; `body` says why. */
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

/** Every store answers PING within READINESS_DEADLINE_MS; each answer is recorded in the store gauge. */
export async function storeReadiness(metrics: PetStoreMetrics | null, probes: readonly StoreProbe[]): Promise<Readiness> {
  const stores = await checkStores(probes, READINESS_DEADLINE_MS);
  for (const { store, up } of stores) metrics?.storeUp(store, up);
  const down = stores.filter((status) => !status.up);
  if (down.length > 0) return { ready: false, body: { status: 'unavailable', failed: down.map(({ store, reason }) => ({ store, reason })) } };
  return { ready: true, body: { status: 'ready', stores: stores.map(({ store }) => store) } };
}

/** One server process: its own stores and metrics. */
export const processAdminSource = (metrics: PetStoreMetrics, probes: readonly StoreProbe[]): AdminSource => ({
  readiness: () => storeReadiness(metrics, probes),
  metrics: () => metrics.text(),
  contentType: metrics.registry.contentType,
});
