import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { isArgumentError, USAGE_EXIT_CODE } from './argument-errors.js';
import { runKeysCommand } from './keys-command.js';
import { runMigrateCommand } from './migrate-command.js';
import { ConfigurationError, startPetStore } from '../start-pet-store.js';
import { answerSupervisor } from '../cluster/answer-supervisor.js';
import { startSupervisor } from '../cluster/supervisor.js';
import { loadConfig, type ConfiguredKey, type Environ, type PetStoreConfig } from '../config/config.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { failureLine } from './store-failure.js';
import { STORE_FLAGS } from './store-flags.js';

// Each flag mirrors an environment variable (docs/configuration.md); a flag wins over the variable.
const FLAGS = {
  port: 'PORT',
  host: 'HOST',
  ...STORE_FLAGS,
  'pg-pool': 'PETSTORE_PG_POOL',
  'pg-timeout-ms': 'PETSTORE_PG_TIMEOUT_MS',
  'api-keys': 'PETSTORE_API_KEYS',
  'quota-fallback': 'PETSTORE_QUOTA_FALLBACK',
  'ready-on-degraded': 'PETSTORE_READY_ON_DEGRADED',
  'trust-proxy': 'PETSTORE_TRUST_PROXY',
  'cors-origins': 'PETSTORE_CORS_ORIGINS',
  'log-level': 'PETSTORE_LOG_LEVEL',
  'access-log': 'PETSTORE_ACCESS_LOG',
  'admin-port': 'PETSTORE_ADMIN_PORT',
  'admin-host': 'PETSTORE_ADMIN_HOST',
  'shutdown-grace-ms': 'PETSTORE_SHUTDOWN_GRACE_MS',
  'drain-seconds': 'PETSTORE_DRAIN_SECONDS',
  workers: 'PETSTORE_WORKERS',
} as const;

const USAGE = `Usage: petstore [--port N] [--host H] [--env development|test|staging|production]
                [--store memory|redis|postgres] [--database-url URL] [--pg-pool N] [--pg-timeout-ms MS]
                [--redis-url URL | --redis-cluster-nodes HOST:PORT,...] [--redis-prefix P]
                [--api-keys KEY:PLAN[:staff],...] [--quota-fallback local|allow|deny] [--ready-on-degraded ready|fail]
                [--trust-proxy HOPS|CIDR,...] [--cors-origins '*'|ORIGIN,...]
                [--log-level fatal|error|warn|info|debug|trace|silent] [--access-log on|off]
                [--admin-port N] [--admin-host H] [--drain-seconds S] [--shutdown-grace-ms MS]
                [--workers N|auto]
       petstore keys create|update|show|list|revoke ...   (see petstore keys --help)
       petstore migrate [--dry-run] [--database-url URL]   (see petstore migrate --help)
Every flag can be given as its environment variable instead (see docs/configuration.md).`;

function environFromArgs(argv: readonly string[]): NodeJS.ProcessEnv {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      ...Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: 'string' as const }])),
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) {
    console.log(USAGE);
    process.exit(0);
  }
  const environ = { ...process.env };
  for (const [flag, variable] of Object.entries(FLAGS)) {
    const value = (values as Record<string, string | boolean | undefined>)[flag];
    if (typeof value === 'string') environ[variable] = value;
  }
  return environ;
}

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

function announce(served: Served): void {
  const { config } = served;
  const workers = config.workers === 1 ? '' : `, ${config.workers} workers`;
  console.log(`Pet store (${config.environment}, ${config.store} store${workers}) listening on ${served.baseUrl}`);
  const keyRoutes = config.adminToken === undefined ? '' : ', /keys with the admin token, /openapi.json';
  if (served.adminUrl !== undefined) console.log(`Admin listening on ${served.adminUrl} (/metrics, /healthz, /readyz${keyRoutes})`);
  if (served.demoKeys.length === 0) return;
  console.log('Demo API keys (new at every start):');
  for (const { key, plan, role } of served.demoKeys) {
    const [perMinute, perDay] = plan.rules.map((rule) => rule.limit);
    const label = role === 'staff' ? `${plan.name} staff` : plan.name;
    console.log(`  ${label.padEnd(10)} ${key}  (${perMinute}/min, ${perDay}/day)`);
  }
  const [free] = served.demoKeys;
  if (free !== undefined) console.log(`Try:\n  curl -i -H 'Authorization: Bearer ${free.key}' '${served.baseUrl}/pets?limit=5'`);
}

async function main(): Promise<void> {
  if (process.argv[2] === 'keys') process.exit(await runKeysCommand(process.argv.slice(3), process.env));
  if (process.argv[2] === 'migrate') process.exit(await runMigrateCommand(process.argv.slice(3), process.env));
  let served: Served;
  try {
    served = await serve(environFromArgs(process.argv.slice(2)));
  } catch (error) {
    if (isArgumentError(error)) {
      console.error(`petstore: ${error.message}\n${USAGE}`);
      process.exit(USAGE_EXIT_CODE);
    }
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
    if (!cluster.isWorker) console.log(`${signal}: finishing requests in flight, then exiting`);
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

await main();
