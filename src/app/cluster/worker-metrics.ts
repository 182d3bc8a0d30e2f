import { Counter, Gauge, Registry } from 'prom-client';

export interface WorkerMetrics {
  readonly registry: Registry;
  readonly up: Gauge;
  readonly restarts: Counter;
}

/** The supervisor's own metrics, served beside its workers' sums: how many workers listen, how often one was replaced. */
export function createWorkerMetrics(): WorkerMetrics {
  const registry = new Registry();
  return {
    registry,
    up: new Gauge({ name: 'petstore_workers_up', help: 'Worker processes listening, of PETSTORE_WORKERS.', registers: [registry] }),
    restarts: new Counter({ name: 'petstore_worker_restarts_total', help: 'Workers started again after one died.', registers: [registry] }),
  };
}
