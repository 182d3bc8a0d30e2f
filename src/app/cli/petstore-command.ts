import { parseArgs } from 'node:util';
import { isArgumentError, USAGE_EXIT_CODE } from './argument-errors.js';
import { runKeysCommand } from './keys-command.js';
import { runMigrateCommand } from './migrate-command.js';
import { ConfigurationError, startPetStore, type RunningPetStore } from '../start-pet-store.js';
import { unavailabilityReason } from './store-failure.js';
import { STORE_FLAGS } from './store-flags.js';

// Each flag mirrors an environment variable (README, "Configuration"); a flag wins over the variable.
const FLAGS = {
  port: 'PORT',
  host: 'HOST',
  ...STORE_FLAGS,
  'pg-pool': 'PETSTORE_PG_POOL',
  'api-keys': 'PETSTORE_API_KEYS',
  'quota-fallback': 'PETSTORE_QUOTA_FALLBACK',
  'trust-proxy': 'PETSTORE_TRUST_PROXY',
  'cors-origins': 'PETSTORE_CORS_ORIGINS',
  'log-level': 'PETSTORE_LOG_LEVEL',
  'access-log': 'PETSTORE_ACCESS_LOG',
  'admin-port': 'PETSTORE_ADMIN_PORT',
  'admin-host': 'PETSTORE_ADMIN_HOST',
  'shutdown-grace-ms': 'PETSTORE_SHUTDOWN_GRACE_MS',
  'drain-seconds': 'PETSTORE_DRAIN_SECONDS',
} as const;

const USAGE = `Usage: petstore [--port N] [--host H] [--env development|test|staging|production]
                [--store memory|redis|postgres] [--database-url URL] [--pg-pool N]
                [--redis-url URL | --redis-cluster-nodes HOST:PORT,...] [--redis-prefix P]
                [--api-keys KEY:PLAN[:staff],...] [--quota-fallback local|allow|deny]
                [--trust-proxy HOPS|CIDR,...] [--cors-origins '*'|ORIGIN,...]
                [--log-level fatal|error|warn|info|debug|trace|silent] [--access-log on|off]
                [--admin-port N] [--admin-host H] [--drain-seconds S] [--shutdown-grace-ms MS]
       petstore keys create|list|revoke ...   (see petstore keys --help)
       petstore migrate [--dry-run] [--database-url URL]   (see petstore migrate --help)
Every flag can be given as its environment variable instead (see README).`;

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

function announce(store: RunningPetStore): void {
  const { config } = store;
  console.log(`Pet store (${config.environment}, ${config.store} store) listening on ${store.baseUrl}`);
  if (store.adminUrl !== undefined) console.log(`Admin listening on ${store.adminUrl} (/metrics, /healthz, /readyz)`);
  if (store.demoKeys.length === 0) return;
  console.log('Demo API keys (new at every start):');
  for (const { key, plan, role } of store.demoKeys) {
    const [perMinute, perDay] = plan.rules.map((rule) => rule.limit);
    const label = role === 'staff' ? `${plan.name} staff` : plan.name;
    console.log(`  ${label.padEnd(10)} ${key}  (${perMinute}/min, ${perDay}/day)`);
  }
  const [free] = store.demoKeys;
  if (free !== undefined) console.log(`Try:\n  curl -i -H 'Authorization: Bearer ${free.key}' '${store.baseUrl}/pets?limit=5'`);
}

async function main(): Promise<void> {
  if (process.argv[2] === 'keys') process.exit(await runKeysCommand(process.argv.slice(3), process.env));
  if (process.argv[2] === 'migrate') process.exit(await runMigrateCommand(process.argv.slice(3), process.env));
  let store: RunningPetStore;
  try {
    store = await startPetStore(environFromArgs(process.argv.slice(2)));
  } catch (error) {
    if (isArgumentError(error)) {
      console.error(`petstore: ${error.message}\n${USAGE}`);
      process.exit(USAGE_EXIT_CODE);
    }
    const reason = unavailabilityReason(error);
    const message = error instanceof Error ? error.message : String(error);
    const lines = error instanceof ConfigurationError ? error.problems : [reason === undefined ? message : `${message} (${reason})`];
    for (const line of lines) console.error(`petstore: ${line}`);
    process.exit(1);
  }
  announce(store);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing requests in flight, then exiting`);
    store.close().then(
      async () => {
        await store.flushLogs();
        process.exit(0);
      },
      async (error: unknown) => {
        store.logger.error({ err: error }, 'shutdown failed');
        await store.flushLogs();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

await main();
