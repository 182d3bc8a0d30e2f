import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { EntryBatch, FINISHED_REQUESTS_BATCH } from '../logging/entry-batch.js';
import { LabelTally } from './label-tally.js';
import { LatencyHistogram } from './latency-histogram.js';
import { RULE_MARKS, type OnRequestFinished, type RequestFinishedEvent, type RuleMark } from '../../adapters/http/wire/request-finished.js';
import { checkStores, type StoreProbe, type StoreStatus } from './store-probes.js';

export interface PetStoreMetrics {
  readonly registry: Registry;
  /** What GET /metrics answers: the registry's metrics, then the latency histogram. */
  text(): Promise<string>;
  /** The same as prom-client JSON, for a supervisor to add up its workers' (AggregatorRegistry.aggregate). */
  json(): Promise<readonly object[]>;
  /** The request-finished hook that counts each request (in batches; all counted before `text` answers). */
  readonly observe: OnRequestFinished;
  /** Records the stores' states, as a readiness check found them. */
  storesFound(stores: readonly StoreStatus[]): void;
}

/** Status label of a request whose connection closed before its answer was sent: the status it was given never reached the client. */
const ABORTED = 'aborted';

/** Route label of a request no route matched: a fixed value, never the URL, so the label set stays bounded. */
export const UNMATCHED_ROUTE = 'unmatched';
const PROBE_DEADLINE_MS = 1_000;

/** The route label of a request: its path template, or UNMATCHED_ROUTE. */
const routeLabel = (route: string | null): string => route ?? UNMATCHED_ROUTE;

/** A store named in an error (`Redis`, `Redis at redis://...`) as a bounded label value: its first word, lower case. */
const storeLabel = (named: string): string => (named.split(' ')[0] ?? named).toLowerCase();

/** prom-client's default gauges named like counters (`promtool check metrics`: non-counter metrics should not have "_total" suffix). */
const MISNAMED_DEFAULT_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

/**
 * The service's metrics, in a registry of their own (several servers may run in one process):
 * every label value comes from a fixed set (methods, route templates, statuses, plans, rule names, verdicts, stores).
 */
export function createMetrics(
  probes: readonly StoreProbe[],
  fallbacks: ReadonlyMap<string, string> = new Map(),
  fallbackActive?: () => boolean,
): PetStoreMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client names these gauges _total, which promtool refuses (only counters may end so); each is the sum of its nodejs_active_* by type.
  for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(name);
  if (fallbackActive !== undefined) {
    new Gauge({
      name: 'petstore_quota_fallback_active',
      help: 'Whether the quota outage fallback (PETSTORE_QUOTA_FALLBACK local or allow) decides in place of Redis now (1: quotas per instance, or not counted) or not (0).',
      registers: [registry],
      collect() {
        this.set(fallbackActive() ? 1 : 0);
      },
    });
  }
  const registers = [registry];
  new Counter({
    name: 'petstore_http_requests_total',
    help: 'Requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
    collect() {
      requestCounts.copyTo(this);
    },
  });
  const latency = new LatencyHistogram(
    'petstore_http_request_duration_seconds',
    'Time from the request to the end of its answer, by method and route template.',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );
  new Counter({
    name: 'petstore_quota_decisions_total',
    help: 'Quota decisions, by plan (anonymous: per client address) and verdict.',
    labelNames: ['plan', 'verdict'] as const,
    registers,
    collect() {
      quotaCounts.copyTo(this);
    },
  });
  const ruleCounter = (name: string, help: string) => new Counter({ name, help: `${help}, by plan and rule.`, labelNames: ['plan', 'rule'] as const, registers });
  // One counter per field of the event that names rules.
  const ruleCounters: Record<RuleMark, ReturnType<typeof ruleCounter>> = {
    shadowed: ruleCounter('petstore_quota_shadow_refusals_total', 'Requests a shadow rule had no room for, which it would have refused if enforced'),
    refunded: ruleCounter('petstore_quota_refunds_total', 'Requests whose cost a rule gave back, their answer being one the rule refunds'),
    refundLost: ruleCounter('petstore_quota_refunds_lost_total', 'Refunds the quota store could not take (unreachable): the cost stays spent'),
  };
  const storeErrors = new Counter({
    name: 'petstore_store_errors_total',
    help: 'Requests answered 503 because a store was unavailable, by store and operation.',
    labelNames: ['store', 'operation'] as const,
    registers,
  });
  // One round of pings per scrape, shared by the two gauges of store state (prom-client collects them concurrently).
  let scrapeCheck: Promise<StoreStatus[]> | undefined;
  const storesNow = (): Promise<StoreStatus[]> => {
    scrapeCheck ??= checkStores(probes, PROBE_DEADLINE_MS).finally(() => (scrapeCheck = undefined));
    return scrapeCheck;
  };
  const up = new Gauge({
    name: 'petstore_store_up',
    help: 'Whether the store answered a ping within a second at the last scrape or readiness check (1) or not (0).',
    labelNames: ['store'] as const,
    registers,
    // With workers, one value per store: 0 when any worker finds it down (a sum would read 2).
    aggregator: 'min',
    async collect() {
      found(await storesNow());
    },
  });
  const degraded = new Gauge({
    name: 'petstore_store_degraded',
    help: 'Whether the store is down and the API served without it by its outage policy (1: serving degraded) or not (0); only stores that have such a policy.',
    labelNames: ['store'] as const,
    registers,
    aggregator: 'max',
    async collect() {
      found(await storesNow());
    },
  });
  const found = (stores: readonly StoreStatus[]): void => {
    for (const { store, up: isUp } of stores) {
      up.set({ store }, isUp ? 1 : 0);
      if (fallbacks.has(store)) degraded.set({ store }, isUp ? 0 : 1);
    }
  };
  for (const probe of probes) {
    up.set({ store: probe.store }, 1);
    if (fallbacks.has(probe.store)) degraded.set({ store: probe.store }, 0);
  }

  const requestCounts = new LabelTally<'method' | 'route' | 'status', RequestFinishedEvent>(({ method, route, status, completed }) => ({
    method,
    route: routeLabel(route),
    status: completed ? status : ABORTED,
  }));
  const quotaCounts = new LabelTally<'plan' | 'verdict', RequestFinishedEvent>(({ plan, verdict }) => ({ plan, verdict: verdict ?? '' }));

  const count = (event: RequestFinishedEvent): void => {
    // An operation's id names its method and route; a request no route matched is named by its method.
    const series = event.operation ?? `${event.method} ${UNMATCHED_ROUTE}`;
    requestCounts.add(series, event.completed ? event.status : ABORTED, event);
    latency.observe(series, event.method, routeLabel(event.route), event.durationMs / 1_000);
    if (event.verdict !== null) quotaCounts.add(event.plan, event.verdict, event);
    for (const mark of RULE_MARKS) {
      const rules = event[mark];
      if (rules !== null) for (const rule of rules) ruleCounters[mark].inc({ plan: event.plan, rule });
    }
    if (event.storeUnavailable !== null) storeErrors.inc({ store: storeLabel(event.storeUnavailable), operation: event.operation ?? UNMATCHED_ROUTE });
  };
  // Counted in batches, as access lines are made; every count is in before a scrape is answered.
  const finished = new EntryBatch<RequestFinishedEvent>((events) => events.forEach(count), FINISHED_REQUESTS_BATCH.size, FINISHED_REQUESTS_BATCH.maxWaitMs);

  return {
    registry,
    text: async () => {
      finished.flush();
      return `${await registry.metrics()}\n${latency.text()}`;
    },
    json: async () => {
      finished.flush();
      return [...(await registry.getMetricsAsJSON()), latency.json()];
    },
    observe: (event) => finished.add(event),
    storesFound: found,
  };
}
