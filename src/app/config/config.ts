import type { TrustProxy } from '../../adapters/http/pipeline/client-address.js';
import type { CorsOrigins } from '../../adapters/http/pipeline/cors.js';
import type { TracesMode } from '../../adapters/opentelemetry/open-telemetry-tracer.js';
import type { RedisNodeAddress } from '../../adapters/redis/redis-cluster-client.js';
import type { BanPolicy } from '../../domain/quota/quota-rule.js';
import { err, ok, type Result } from '../../domain/result.js';
import type { PlanCatalog } from '../../domain/quota/plan-parser.js';
import { resolveApiKeys, type ConfiguredKey } from './api-key-entries.js';
import { ALL_SECTIONS, readSettings, type Environ, type SettingsOf } from './load-settings.js';
import type { SectionName } from './setting.js';
import { SETTINGS, SHARED_STORES, STORE_KINDS, type DegradedReadiness, type Environment, type LogLevel, type QuotaFallback, type StoreKind } from './settings.js';

export { apiKeyEntry, type ConfiguredKey } from './api-key-entries.js';
export { ALL_SECTIONS, loadSettings, type Environ, type SettingsOf } from './load-settings.js';
export {
  countersInRedisApart,
  DEFAULT_DATABASE_URL,
  DEGRADED_READINESS,
  ENVIRONMENTS,
  LOG_LEVELS,
  QUOTA_FALLBACKS,
  KEY_KEEPING_STORES,
  SETTINGS,
  SHARED_STORES,
  STORE_KINDS,
  STORES,
  type DegradedReadiness,
  type Environment,
  type LogLevel,
  type QuotaFallback,
  type StoreKind,
} from './settings.js';
export { MIN_ADMIN_TOKEN_LENGTH, withoutPassword } from './value-parsers.js';

export interface PetStoreConfig {
  readonly environment: Environment;
  readonly host: string;
  readonly port: number;
  readonly store: StoreKind;
  readonly redisUrl: string;
  /** REDIS_CLUSTER_NODES, with REDIS_PASSWORD: a Redis Cluster instead of the one Redis at redisUrl. */
  readonly redisCluster: RedisClusterConfig | undefined;
  readonly redisPrefix: string;
  /** PETSTORE_STORE=pglite: the directory of its records (required with it). */
  readonly dataDir: string | undefined;
  /** PETSTORE_STORE=postgres: where the records live (the quota counters stay in Redis). */
  readonly databaseUrl: string;
  /** Connections each instance keeps to PostgreSQL. */
  readonly pgPoolSize: number;
  /** How long a PostgreSQL call may take before its request is answered 503; undefined: the store's own (POSTGRES_TIMEOUT_MS). */
  readonly pgTimeoutMs: number | undefined;
  /** PETSTORE_PLANS: the plans of the file, by name, beside the built-in ones. */
  readonly plans: PlanCatalog;
  readonly apiKeys: readonly ConfiguredKey[];
  readonly ban: BanPolicy;
  readonly anonymousPerMinute: number;
  readonly quotaFallback: QuotaFallback;
  /** /readyz while the API is served without a store (a quota Redis down under PETSTORE_QUOTA_FALLBACK local or allow). */
  readonly readyOnDegraded: DegradedReadiness;
  readonly deprecatedAt: Date;
  /** Which peers' X-Forwarded-For names the client address of anonymous callers. */
  readonly trustProxy: TrustProxy;
  /** Origins allowed by CORS; undefined: CORS off. */
  readonly corsOrigins: CorsOrigins | undefined;
  readonly logLevel: LogLevel;
  /** One JSON line per request (request id, route template, status, duration, key digest prefix). */
  readonly accessLog: boolean;
  /** Whether requests and store calls make OpenTelemetry spans (docs/operating.md, "Traces"). */
  readonly traces: TracesMode;
  /** The share of requests without a sampled caller offered to the SDK's sampler; the rest make no span. */
  readonly tracesRatio: number;
  /** The admin listener (/metrics, /healthz, /readyz); undefined: none. 0: a free port. */
  readonly adminPort: number | undefined;
  readonly adminHost: string;
  /** The bearer token of the admin listener's key routes (/keys); undefined: those routes answer 404. */
  readonly adminToken: string | undefined;
  /** How long a shutdown lets requests in flight finish before cutting them. */
  readonly shutdownGraceMs: number;
  /** After SIGTERM, how long readiness answers 503 while the server still accepts and answers, so a load balancer stops sending. */
  readonly drainSeconds: number;
  /** Server processes sharing the port (PETSTORE_WORKERS; `auto`: one per core the process may use). */
  readonly workers: number;
}

export interface RedisClusterConfig {
  readonly nodes: readonly RedisNodeAddress[];
  readonly password?: string;
}

/**
 * The sections a command that opens the shared stores reads (`petstore keys`): a key's strikes
 * are kept and read under the servers' ban policy, and its plan may be one of the plans file's.
 */
export const STORE_SECTIONS = ['store', 'redis', 'postgres', 'ban', 'logging', 'plans'] as const satisfies readonly SectionName[];
/** The sections `petstore migrate` reads: the store is PostgreSQL whatever PETSTORE_STORE says. */
export const DATABASE_SECTIONS = ['postgres', 'logging'] as const satisfies readonly SectionName[];

/** What a command that opens the shared stores needs, as the server reads it. */
export type StoreSettings = Pick<PetStoreConfig, 'environment' | 'store' | 'dataDir' | 'redisUrl' | 'redisCluster' | 'redisPrefix' | 'databaseUrl' | 'pgPoolSize' | 'pgTimeoutMs' | 'ban' | 'logLevel' | 'plans'>;
/** What `petstore migrate` needs. */
export type DatabaseSettings = Pick<PetStoreConfig, 'environment' | 'databaseUrl' | 'pgPoolSize' | 'pgTimeoutMs' | 'logLevel'>;

const redisClusterOf = ({ redisClusterNodes: nodes, redisPassword: password }: SettingsOf<'redis'>): RedisClusterConfig | undefined =>
  nodes === undefined ? undefined : password === undefined ? { nodes } : { nodes, password };

const banPolicyOf = ({ banStrikes, banWindowSeconds, banSeconds }: SettingsOf<'ban'>): BanPolicy => ({
  strikes: banStrikes,
  strikeWindowMs: banWindowSeconds * 1_000,
  banMs: banSeconds * 1_000,
});

/**
 * The settings of every section in the shape of PetStoreConfig: a Cluster's two variables as one
 * value, the ban's three as a policy, the keys with the plans they name (`apiKeys`, resolved).
 */
function configOf(values: SettingsOf<SectionName>, apiKeys: readonly ConfiguredKey[]): PetStoreConfig {
  const { redisClusterNodes: _nodes, redisPassword: _password, banStrikes: _strikes, banWindowSeconds: _window, banSeconds: _ban, ...rest } = values;
  return { ...rest, apiKeys, redisCluster: redisClusterOf(values), ban: banPolicyOf(values) };
}

/** PETSTORE_STORE=pglite names no directory: a problem's line, else undefined. */
const missingDataDir = ({ store, dataDir }: Pick<PetStoreConfig, 'store' | 'dataDir'>): string | undefined =>
  store === 'pglite' && dataDir === undefined
    ? `${SETTINGS.store.variable}=pglite keeps its records in a directory: set ${SETTINGS.dataDir.variable} (or --${SETTINGS.dataDir.flag}) to one, created if missing`
    : undefined;

/**
 * Reads the server's configuration (docs/configuration.md) from environment variables: every
 * section, and the rules across settings that only a server has. Every mistake is reported, one
 * line each, so an operator fixes them all in one go.
 */
export function loadConfig(environ: Environ): Result<PetStoreConfig, readonly string[]> {
  const { values, problems } = readSettings(environ, ALL_SECTIONS);
  const { workers, store, adminToken, adminPort, apiKeys } = SETTINGS;
  // Entries name their plans; the plans file's are known only once it is read.
  const keys = resolveApiKeys(values.apiKeys, values.plans);
  if (!keys.ok) problems.push(...keys.error.map((problem) => `${apiKeys.variable}: ${problem}`));
  const config = configOf(values, keys.ok ? keys.value : []);
  if (config.workers > 1 && !STORE_KINDS[config.store].sharedByProcesses) {
    problems.push(
      `${workers.variable}=${config.workers} needs a shared store: each worker's ${config.store} store would keep its own quotas and records. ` +
        `Set ${store.variable}=${SHARED_STORES.join(' or ')}, or ${workers.variable}=1`,
    );
  }
  const noDataDir = missingDataDir(config);
  if (noDataDir !== undefined) problems.push(noDataDir);
  if (config.adminToken !== undefined && config.adminPort === undefined) {
    problems.push(`${adminToken.variable} guards the key routes of the admin listener, which needs ${adminPort.variable}`);
  }
  // An entry given but refused is reported above as what it is, not again as missing; a shared store's keys are managed there.
  const keysGiven = (environ[apiKeys.variable] ?? '').trim() !== '';
  if (isDeployed(config) && config.apiKeys.length === 0 && !keysGiven && !STORE_KINDS[config.store].sharedByProcesses) {
    problems.push(`${apiKeys.variable} is required in ${config.environment}: comma-separated KEY:PLAN entries`);
  }
  return problems.length === 0 ? ok(config) : err(problems);
}

const isDeployed = ({ environment }: Pick<PetStoreConfig, 'environment'>): boolean => environment === 'staging' || environment === 'production';

/**
 * The start's info line when a deployed server has no static key: every key is one managed in
 * the shared store. Undefined otherwise (development makes demo keys instead).
 */
export function managedKeysOnlyLine(config: Pick<PetStoreConfig, 'environment' | 'store' | 'apiKeys'>): string | undefined {
  if (!isDeployed(config) || config.apiKeys.length > 0) return undefined;
  return `no ${SETTINGS.apiKeys.variable}: every API key is one managed in the ${config.store} store (petstore keys, the admin API)`;
}

/** The store sections (STORE_SECTIONS), as the server reads them, without the server's own rules: what `petstore keys` opens. */
export function loadStoreSettings(environ: Environ): Result<StoreSettings, readonly string[]> {
  const { values, problems } = readSettings(environ, STORE_SECTIONS);
  const { environment, store, dataDir, redisUrl, redisPrefix, databaseUrl, pgPoolSize, pgTimeoutMs, logLevel, plans } = values;
  const redisCluster = redisClusterOf(values);
  const ban = banPolicyOf(values);
  const settings = { environment, store, dataDir, redisUrl, redisCluster, redisPrefix, databaseUrl, pgPoolSize, pgTimeoutMs, ban, logLevel, plans };
  const noDataDir = missingDataDir(settings);
  if (noDataDir !== undefined) problems.push(noDataDir);
  return problems.length === 0 ? ok(settings) : err(problems);
}

/** The database sections (DATABASE_SECTIONS): what `petstore migrate` opens. */
export function loadDatabaseSettings(environ: Environ): Result<DatabaseSettings, readonly string[]> {
  const { values, problems } = readSettings(environ, DATABASE_SECTIONS);
  return problems.length === 0 ? ok(values) : err(problems);
}

/**
 * A command's settings completed with the defaults of the sections it does not read, for the
 * container, which takes a whole configuration: nothing of those sections is read from the
 * environment, and no rule of the server's applies.
 */
export function withDefaults(settings: Partial<PetStoreConfig> & Pick<PetStoreConfig, 'environment'>): PetStoreConfig {
  const defaults = readSettings({ [SETTINGS.environment.variable]: settings.environment }, ALL_SECTIONS).values;
  return { ...configOf(defaults, []), ...settings };
}
