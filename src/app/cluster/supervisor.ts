import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { DEFAULT_BASE_PATH } from '../../adapters/http/contract/base-path.js';
import { READINESS_DEADLINE_MS, type AdminSource, type Readiness } from '../admin/admin-source.js';
import { startAdminServer, type AdminServer } from '../admin/admin-server.js';
import { readinessOf, readinessPolicyOf } from '../admin/readiness.js';
import type { StoreStatus } from '../admin/store-probes.js';
import { pacedMetrics } from '../admin/paced-metrics.js';
import { apiKeyEntry, managedKeysOnlyLine, type ConfiguredKey, type Environ, type PetStoreConfig } from '../config/config.js';
import { withDemoKeys } from '../config/demo-keys.js';
import { composePetStore } from '../pet-store-app.js';
import { errorLogger, type PetStoreLogger } from '../logging/logger.js';
import { isWorkerReply, type SupervisorRequest, type WorkerReply } from './worker-messages.js';
import { createWorkerMetrics } from './worker-metrics.js';

/** A worker that died before it listened is started again after this, so a store that is down does not spin the machine. */
const RESTART_DELAY_MS = 1_000;
/** A worker's answer to a request its supervisor forwards from the admin listener. */
const ANSWER_DEADLINE_MS = READINESS_DEADLINE_MS + 500;
/** Counters and histograms only grow: a dead worker's are kept; its gauges (memory, store state) died with it. */
const isCumulative = (metric: object): boolean => {
  const { type } = metric as { type?: unknown };
  return type === 'counter' || type === 'histogram';
};

/** One status per store from every worker's probes: down if any worker found it down, with the first reason given. */
function mergedStores(found: readonly (readonly StoreStatus[])[]): StoreStatus[] {
  const merged = new Map<string, StoreStatus>();
  for (const stores of found) {
    for (const status of stores) {
      const seen = merged.get(status.store);
      if (seen === undefined || (seen.up && !status.up)) merged.set(status.store, status);
    }
  }
  return [...merged.values()];
}

/** After its drain and grace, a worker that has not exited is killed. */
const EXIT_DEADLINE_MS = 5_000;

export interface RunningSupervisor {
  readonly url: string;
  readonly baseUrl: string;
  readonly adminUrl: string | undefined;
  readonly demoKeys: readonly ConfiguredKey[];
  readonly workers: number;
  /** SIGTERM to every worker (each drains and finishes its requests), then the admin listener closes. Resolves with the exit code. */
  close(): Promise<number>;
}

export class WorkerStartError extends Error {
  override readonly name = 'WorkerStartError';
}

interface Member {
  readonly worker: Worker;
  listening: boolean;
}

/**
 * PETSTORE_WORKERS > 1: this process (node:cluster's primary) runs no API itself. It starts
 * `config.workers` server processes on one port, replaces one that dies, serves the admin
 * listener for all of them (metrics added up, readiness of every worker's stores, only while
 * every worker listens and answers), and on close drains them all.
 */
export async function startSupervisor(environ: Environ, config: PetStoreConfig, log: PetStoreLogger): Promise<RunningSupervisor> {
  const { logger } = log;
  const { demoKeys } = withDemoKeys(config);
  // Every worker must know the same keys: demo keys are made once, here, and handed down.
  const workerEnviron = demoKeys.length === 0 ? { ...environ } : { ...environ, PETSTORE_API_KEYS: demoKeys.map(apiKeyEntry).join(',') };
  // Every worker accepts from the shared socket itself. Under node:cluster's round robin the
  // supervisor accepts and hands each connection to a worker; one handed to a worker as it died
  // stayed open and unanswered (the workers test saw a 10 s hang). Node's own variable still decides when set.
  if (process.env['NODE_CLUSTER_SCHED_POLICY'] === undefined) cluster.schedulingPolicy = cluster.SCHED_NONE;
  const members = new Map<number, Member>();
  const { registry, up, restarts } = createWorkerMetrics();
  const answers = new Map<number, (reply: WorkerReply) => void>();
  /** What each worker's /metrics said last, by worker id. */
  const lastMetrics = new Map<number, readonly object[]>();
  /**
   * The counters and histograms of workers that died, as they last said, summed: the sums over
   * workers never go down when one dies (Prometheus would read a drop as a counter reset).
   */
  let retired: readonly object[] = [];
  let retiring = Promise.resolve();
  const retire = (workerId: number): void => {
    const last = lastMetrics.get(workerId);
    lastMetrics.delete(workerId);
    if (last === undefined) return;
    retiring = retiring.then(async () => {
      retired = await AggregatorRegistry.aggregate([retired as object[], last.filter(isCumulative) as object[]]).getMetricsAsJSON();
    });
  };
  let nextRequest = 0;
  let shuttingDown = false;
  let started = false;
  let boundPort = config.port;

  const countUp = (): void => up.set([...members.values()].filter((member) => member.listening).length);

  const fork = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork(workerEnviron);
      const member: Member = { worker, listening: false };
      members.set(worker.id, member);
      worker.on('message', (message: unknown) => {
        if (isWorkerReply(message)) answers.get(message.id)?.(message);
      });
      worker.once('listening', (address) => {
        member.listening = true;
        boundPort = address.port;
        countUp();
        logger.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker listening');
        resolve();
      });
      worker.once('exit', (code, signal) => {
        members.delete(worker.id);
        retire(worker.id);
        countUp();
        if (!member.listening) reject(new WorkerStartError(`worker ${worker.id} exited (${signal ?? `code ${code}`}) before it listened`));
        if (shuttingDown) return;
        if (!started) return;
        logger.error({ worker: worker.id, workerPid: worker.process.pid, code, signal }, 'worker died; starting another');
        restarts.inc();
        const replace = (): void => {
          if (shuttingDown) return;
          fork().catch((error: unknown) => {
            logger.error({ err: error }, 'replacement worker failed to start; trying again');
          });
        };
        if (member.listening) replace();
        else setTimeout(replace, RESTART_DELAY_MS).unref();
      });
    });

  const exitedAll = (): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (members.size > 0) return;
        cluster.off('exit', check);
        resolve();
      };
      cluster.on('exit', check);
      check();
    });

  try {
    await Promise.all(Array.from({ length: config.workers }, fork));
  } catch (error) {
    shuttingDown = true;
    for (const { worker } of members.values()) worker.process.kill('SIGKILL');
    await exitedAll();
    throw error;
  }
  started = true;

  /** Asks every listening worker; a worker that does not answer in time is left out (`undefined`). */
  const askAll = (type: SupervisorRequest['type'], asked: readonly Member[]): Promise<(WorkerReply | undefined)[]> =>
    Promise.all(
      asked.map(
        ({ worker }) =>
          new Promise<WorkerReply | undefined>((resolve) => {
            const id = nextRequest++;
            const timer = setTimeout(() => finish(undefined), ANSWER_DEADLINE_MS);
            const finish = (reply: WorkerReply | undefined): void => {
              clearTimeout(timer);
              answers.delete(id);
              resolve(reply);
            };
            answers.set(id, finish);
            if (worker.isConnected()) worker.send({ type, id } satisfies SupervisorRequest);
            else finish(undefined);
          }),
      ),
    );

  const policy = readinessPolicyOf(config);
  const listeningMembers = (): Member[] => [...members.values()].filter((member) => member.listening);
  const source: AdminSource = {
    contentType: registry.contentType,
    readiness: async (): Promise<Readiness> => {
      const asked = listeningMembers();
      const replies = await askAll('petstore:readiness', asked);
      const stores = mergedStores(replies.flatMap((reply) => (reply?.type === 'petstore:readiness' ? [reply.stores] : [])));
      const silent = replies.filter((reply) => reply === undefined).length;
      const workerFailures = [
        ...(asked.length < config.workers ? [{ store: 'workers', reason: `${asked.length} of ${config.workers} workers listening` }] : []),
        ...(silent > 0 ? [{ store: 'workers', reason: `${silent} of ${asked.length} workers gave no answer within ${ANSWER_DEADLINE_MS} ms` }] : []),
      ];
      const { ready, body } = readinessOf(stores, policy);
      const workers = { listening: asked.length, expected: config.workers };
      if (workerFailures.length === 0) return { ready, body: { ...body, workers } };
      return { ready: false, body: { ...body, status: 'unavailable', failed: [...(body.failed ?? []), ...workerFailures], workers } };
    },
    metrics: async () => {
      const asked = listeningMembers();
      const replies = await askAll('petstore:metrics', asked);
      replies.forEach((reply, index) => {
        const id = asked[index]?.worker.id;
        if (reply?.type === 'petstore:metrics' && id !== undefined && members.has(id)) lastMetrics.set(id, reply.metrics);
      });
      await retiring;
      // A worker that answers late counts with what it said last: a sum without it would go down.
      const workers = [...members.keys()].flatMap((id) => {
        const last = lastMetrics.get(id);
        return last === undefined ? [] : [last];
      });
      return AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), retired, ...workers]).metrics();
    },
  };

  let admin: AdminServer | undefined;
  // The key routes reach the shared stores from here, through an app of their own: the workers serve only the API.
  const keysApp = config.adminToken === undefined ? undefined : composePetStore(config, { logger: log });
  try {
    if (config.adminPort !== undefined) {
      const keyApi = await keysApp?.adminKeyApi();
      admin = await startAdminServer({
        host: config.adminHost,
        port: config.adminPort,
        source: pacedMetrics(source),
        logError: errorLogger(logger),
        ...(keyApi === undefined ? {} : { keyApi }),
      });
    }
  } catch (error) {
    await keysApp?.close();
    shuttingDown = true;
    for (const { worker } of members.values()) worker.process.kill('SIGTERM');
    await exitedAll();
    throw error;
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${boundPort}`;
  logger.info({ url: `${url}${DEFAULT_BASE_PATH}`, adminUrl: admin?.url, workers: config.workers, store: config.store }, 'started');
  const managedOnly = managedKeysOnlyLine(config);
  if (managedOnly !== undefined) logger.info({ store: config.store }, managedOnly);

  let closing: Promise<number> | undefined;
  return {
    url,
    baseUrl: `${url}${DEFAULT_BASE_PATH}`,
    adminUrl: admin?.url,
    demoKeys,
    workers: config.workers,
    close: () => {
      closing ??= (async () => {
        shuttingDown = true;
        admin?.beginShutdown();
        logger.info({ workers: members.size }, 'shutdown: readiness answers 503; every worker drains');
        const codes: (number | null)[] = [];
        cluster.on('exit', (_worker, code) => codes.push(code));
        const deadline = setTimeout(
          () => {
            for (const { worker } of members.values()) worker.process.kill('SIGKILL');
          },
          config.drainSeconds * 1000 + config.shutdownGraceMs + EXIT_DEADLINE_MS,
        );
        for (const { worker } of members.values()) worker.process.kill('SIGTERM');
        await exitedAll();
        clearTimeout(deadline);
        await admin?.close();
        await keysApp?.close();
        const failed = codes.filter((code) => code !== 0).length;
        logger.info({ failed }, failed === 0 ? 'shutdown: every worker exited' : 'shutdown: some workers did not exit cleanly');
        return failed === 0 ? 0 : 1;
      })();
      return closing;
    },
  };
}
