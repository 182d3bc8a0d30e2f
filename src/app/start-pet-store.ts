import type { AddressInfo } from 'node:net';
import { DEFAULT_BASE_PATH } from '../adapters/http/contract/base-path.js';
import type { PetStoreHttpServer } from '../adapters/http/http-server.js';
import { loadConfig, managedKeysOnlyLine, type ConfiguredKey, type Environ, type PetStoreConfig } from './config/config.js';
import { withDemoKeys } from './config/demo-keys.js';
import { startAdminServer, type AdminServer } from './admin/admin-server.js';
import { processAdminSource } from './admin/admin-source.js';
import { readinessPolicyOf } from './admin/readiness.js';
import { pacedMetrics } from './admin/paced-metrics.js';
import type { Logger } from './logging/logger.js';
import { composePetStore, type PetStoreApp, type PetStoreAppOptions } from './pet-store-app.js';
import { trackConnections } from './server-shutdown.js';

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

export interface RunningPetStore {
  readonly config: PetStoreConfig;
  /** `http://HOST:PORT`, with the port actually bound (PORT=0 picks a free one). */
  readonly url: string;
  /** `url` + the base path (`/v1`). */
  readonly baseUrl: string;
  /** Keys created because none were configured (development only); empty otherwise. */
  readonly demoKeys: readonly ConfiguredKey[];
  /** The application this server serves: its stores, use cases and key verbs. */
  readonly app: PetStoreApp;
  /** The admin listener's `http://HOST:PORT` (/metrics, /healthz, /readyz); undefined without PETSTORE_ADMIN_PORT. */
  readonly adminUrl: string | undefined;
  readonly logger: Logger;
  /** Resolves once buffered log lines are written (the logger then writes no more): await it before process.exit. */
  flushLogs(): Promise<void>;
  /**
   * The shutdown: /readyz answers 503 while the server still serves for `drainMs` (default
   * PETSTORE_DRAIN_SECONDS), then it stops accepting and answers every request on the
   * connections it accepted (up to `graceMs`, default PETSTORE_SHUTDOWN_GRACE_MS), the stores
   * are closed, then the admin listener.
   */
  close(graceMs?: number, drainMs?: number): Promise<void>;
}

export interface StartOptions {
  /** False in a worker: its supervisor serves the admin listener for all workers (src/app/cluster). */
  readonly serveAdmin?: boolean;
}

/** Starts the standalone server from environment variables (docs/configuration.md), or throws ConfigurationError. */
export async function startPetStore(environ: Environ, options: PetStoreAppOptions = {}, startOptions: StartOptions = {}): Promise<RunningPetStore> {
  const loaded = loadConfig(environ);
  if (!loaded.ok) throw new ConfigurationError(loaded.error);
  const { config, demoKeys } = withDemoKeys(loaded.value);
  return serveApp(composePetStore(config, options), demoKeys, startOptions);
}

/** Listens with the app's HTTP server (and the admin listener unless in a worker); on failure nothing stays open. */
export async function serveApp(app: PetStoreApp, demoKeys: readonly ConfiguredKey[], { serveAdmin = true }: StartOptions = {}): Promise<RunningPetStore> {
  const { config, log } = app;
  const { logger } = log;
  let admin: AdminServer | undefined;
  let server: PetStoreHttpServer | undefined;
  try {
    server = await app.httpServer();
    const shutDown = trackConnections(server);
    await listen(server, config.port, config.host);
    const metrics = await app.metrics();
    if (serveAdmin && config.adminPort !== undefined && metrics !== null) {
      const keyApi = await app.adminKeyApi();
      admin = await startAdminServer({
        host: config.adminHost,
        port: config.adminPort,
        source: pacedMetrics(processAdminSource(metrics, await app.storeProbes(), readinessPolicyOf(config))),
        logError: app.logError,
        ...(keyApi === undefined ? {} : { keyApi }),
      });
    }
    const { port } = server.address() as AddressInfo;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    const baseUrl = `${url}${DEFAULT_BASE_PATH}`;
    logger.info({ url: baseUrl, adminUrl: admin?.url, environment: config.environment, store: config.store, accessLog: config.accessLog }, 'started');
    const managedOnly = serveAdmin ? managedKeysOnlyLine(config) : undefined;
    if (managedOnly !== undefined) logger.info({ store: config.store }, managedOnly);
    let closing: Promise<void> | undefined;
    return {
      config,
      url,
      baseUrl,
      demoKeys,
      app,
      adminUrl: admin?.url,
      logger,
      flushLogs: () => log.close(),
      close: (graceMs = config.shutdownGraceMs, drainMs = config.drainSeconds * 1000) => {
        closing ??= (async () => {
          admin?.beginShutdown();
          logger.info({ drainMs, graceMs }, 'shutdown: readiness answers 503; serving on while load balancers notice');
          const cut = await shutDown(drainMs, graceMs, () => logger.info('shutdown: no new connections; finishing requests in flight'));
          logger.info({ cutConnections: cut }, cut ? 'shutdown: grace period over, remaining requests cut' : 'shutdown: every request in flight finished');
          await app.close();
          logger.info('shutdown: stores closed');
          await admin?.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    // E.g. the admin port taken: the API's listener must not outlive the failed start.
    if (server?.listening === true) await new Promise<void>((resolve) => server?.close(() => resolve()));
    await admin?.close();
    await app.close();
    throw error;
  }
}

function listen(server: PetStoreHttpServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
