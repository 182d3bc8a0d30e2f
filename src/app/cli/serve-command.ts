import cluster from 'node:cluster';
import { ConfigurationError, startPetStore } from '../start-pet-store.js';
import { answerSupervisor } from '../cluster/answer-supervisor.js';
import { startSupervisor } from '../cluster/supervisor.js';
import { loadConfig, type ConfiguredKey, type Environ, type PetStoreConfig } from '../config/config.js';
import { demoKeyLines } from '../config/demo-keys.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { failureLine } from './store-failure.js';

/** What the command runs: one server process, or a supervisor of PETSTORE_WORKERS of them. */
interface Served {
  readonly config: PetStoreConfig;
  readonly baseUrl: string;
  readonly adminUrl: string | undefined;
  readonly demoKeys: readonly ConfiguredKey[];
  readonly logger: Logger;
  /** Resolves with the exit code once every request in flight is answered and the stores are closed. */
  close(): Promise<number>;
  flushLogs(): Promise<void>;
}

async function serve(environ: Environ): Promise<Served> {
  if (cluster.isWorker) {
    const store = await startPetStore(environ, {}, { serveAdmin: false });
    await answerSupervisor(store.app);
    return { ...store, close: () => store.close().then(() => 0) };
  }
  const loaded = loadConfig(environ);
  if (!loaded.ok) throw new ConfigurationError(loaded.error);
  const config = loaded.value;
  if (config.workers === 1) {
    const store = await startPetStore(environ);
    return { ...store, close: () => store.close().then(() => 0) };
  }
  const log = createLogger(config.logLevel);
  const supervisor = await startSupervisor(environ, config, log).catch(async (error: unknown) => {
    await log.close();
    throw error;
  });
  return { ...supervisor, config, logger: log.logger, flushLogs: () => log.close() };
}

/**
 * The start banner, for a person at a terminal: on stderr, so stdout holds only the JSON log
 * lines a collector parses (the `started` line carries the same addresses).
 */
function announce(served: Served): void {
  const { config } = served;
  const workers = config.workers === 1 ? '' : `, ${config.workers} workers`;
  console.error(`Pet store (${config.environment}, ${config.store} store${workers}) listening on ${served.baseUrl}`);
  const keyRoutes = config.adminToken === undefined ? '' : ', /keys with the admin token, /openapi.json';
  if (served.adminUrl !== undefined) console.error(`Admin listening on ${served.adminUrl} (/metrics, /healthz, /readyz${keyRoutes})`);
  if (served.demoKeys.length === 0) return;
  console.error('Demo API keys (new at every start):');
  for (const line of demoKeyLines(served.demoKeys)) console.error(line);
  const [free] = served.demoKeys;
  if (free !== undefined) console.error(`Try:\n  curl -i -H 'Authorization: Bearer ${free.key}' '${served.baseUrl}/pets?limit=5'`);
}

/** Runs the server of `environ` (its flags applied) until SIGTERM or SIGINT; exits 1 if it cannot start. */
export async function runServer(environ: Environ): Promise<void> {
  let served: Served;
  try {
    served = await serve(environ);
  } catch (error) {
    const lines = error instanceof ConfigurationError ? error.problems : [failureLine(error)];
    for (const line of lines) console.error(`petstore: ${line}`);
    process.exit(1);
  }
  // The supervisor announces the server once, for all its workers.
  if (!cluster.isWorker) announce(served);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    if (!cluster.isWorker) console.error(`${signal}: finishing requests in flight, then exiting`);
    served.close().then(
      async (code) => {
        await served.flushLogs();
        process.exit(code);
      },
      async (error: unknown) => {
        served.logger.error({ err: error }, 'shutdown failed');
        await served.flushLogs();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
