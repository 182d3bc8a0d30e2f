import { availableParallelism } from 'node:os';
import { parseTrustProxy, type TrustProxy } from '../../adapters/http/pipeline/client-address.js';
import { parseCorsOrigins, type CorsOrigins } from '../../adapters/http/pipeline/cors.js';
import { RATE_LIMIT_STATUS_RULE } from '../../adapters/http/contract/rate-limit-status-rule.js';
import { DEFAULT_DEPRECATED_AT } from '../../adapters/http/contract/deprecation-date.js';
import { PET_STORE_OPERATION_IDS, PET_STORE_ROUTES } from '../../adapters/http/contract/pet-store-routes.js';
import { DEFAULT_BAN_POLICY, MAX_BAN_STRIKES } from '../../domain/quota/ban-policy.js';
import { MAX_RULE_LIMIT } from '../../domain/quota/decidable-policy.js';
import { NO_FILE_PLANS, type PlanCatalog } from '../../domain/quota/plan-parser.js';
import { ok } from '../../domain/result.js';
import { parseApiKeys, type ApiKeyEntry } from './api-key-entries.js';
import { readPlansFile } from './plans-file.js';
import { oneOf, onOff, text, wholeNumber } from './setting.js';
import { TRACES_MODES } from '../../adapters/opentelemetry/open-telemetry-tracer.js';
import type { DbSystem } from '../../adapters/wrappers/traced-calls.js';
import { ADMIN_TOKEN_SHAPE, parseAdminToken, parseDatabaseUrl, parseDate, parseNodeAddresses, parseShare, parseRedisPrefix, parseRedisUrl } from './value-parsers.js';

export const ENVIRONMENTS = ['development', 'test', 'staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];
interface StoreTraits {
  readonly sharedByProcesses: boolean;
  readonly records: DbSystem;
  readonly counters: DbSystem;
  readonly keysKept: boolean;
}

/**
 * Every store PETSTORE_STORE can name, with what the rest of the app must know of it (its
 * wiring is its module in app/container, chosen by the same name). `sharedByProcesses`: every
 * server process reaches the same records and counters, so workers and `petstore keys` can use
 * it. `records` and `counters`: what keeps the shop's records (pets, orders, keys, credits) and
 * the quota counters (with the concurrency slots), as the spans of their calls name it. `keysKept`:
 * a key `petstore keys` creates is kept where the servers read it (shared, or a directory the
 * next server opens).
 */
export const STORE_KINDS = {
  memory: { sharedByProcesses: false, records: 'memory', counters: 'memory', keysKept: false },
  redis: { sharedByProcesses: true, records: 'redis', counters: 'redis', keysKept: true },
  postgres: { sharedByProcesses: true, records: 'postgresql', counters: 'redis', keysKept: true },
  // One process's database in PETSTORE_DATA_DIR: `petstore keys` opens it while no server does.
  pglite: { sharedByProcesses: false, records: 'postgresql', counters: 'memory', keysKept: true },
} as const satisfies Record<string, StoreTraits>;
export type StoreKind = keyof typeof STORE_KINDS;
export const STORES = Object.keys(STORE_KINDS) as readonly StoreKind[];
/** The stores every server process shares: those workers and `petstore keys` can use. */
export const SHARED_STORES = STORES.filter((kind) => STORE_KINDS[kind].sharedByProcesses);
/** The quota counters live in a Redis beside the records, which the quota fallback can serve the API without. */
export const countersInRedisApart = (kind: StoreKind): boolean => STORE_KINDS[kind].counters === 'redis' && STORE_KINDS[kind].records !== 'redis';
/** The stores `petstore keys` can create keys in. */
export const KEY_KEEPING_STORES = STORES.filter((kind) => STORE_KINDS[kind].keysKept);
/** What the quota check does while its store is unreachable. */
export const QUOTA_FALLBACKS = ['local', 'allow', 'deny'] as const;
export type QuotaFallback = (typeof QUOTA_FALLBACKS)[number];
/** What /readyz answers while a store is down that the outage policy serves the API without: 200 (`ready`) or 503 (`fail`). */
export const DEGRADED_READINESS = ['ready', 'fail'] as const;
export type DegradedReadiness = (typeof DEGRADED_READINESS)[number];
/** pino's levels; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_DATABASE_URL = 'postgres://127.0.0.1:5432/petstore';

/** More processes than this on one machine would be a typo, not a plan. */
const MAX_WORKERS = 256;

const anyText = (raw: string) => ok(raw);

/**
 * Every setting of the service, once: configuration loading, the CLI flags of every command, their
 * usage texts and the table of docs/configuration.md derive from this table, in its order. A new
 * entry is read, accepted as a flag and documented with no other edit.
 */
export const SETTINGS = {
  environment: oneOf({
    variable: 'PETSTORE_ENV',
    flag: 'env',
    section: 'environment',
    values: ENVIRONMENTS,
    default: 'development',
    description: 'what the instance is for: staging and production refuse to start without a reachable store, or on the `memory` store without `PETSTORE_API_KEYS`, and change the defaults marked so',
  }),
  logLevel: oneOf({ variable: 'PETSTORE_LOG_LEVEL', flag: 'log-level', section: 'logging', values: LOG_LEVELS, default: 'info', description: "pino's level; `silent` logs nothing" }),
  port: wholeNumber({ variable: 'PORT', flag: 'port', section: 'http', min: 0, max: 65_535, default: 8080, description: 'the port the API listens on; `0`: any free port' }),
  host: text({ variable: 'HOST', flag: 'host', section: 'http', accepts: 'a host name or address', metavar: 'H', parse: anyText, default: '127.0.0.1', description: 'the address the API listens on' }),
  trustProxy: text<TrustProxy, 'http'>({
    variable: 'PETSTORE_TRUST_PROXY',
    flag: 'trust-proxy',
    section: 'http',
    accepts: 'a hop count (Express semantics) or comma-separated addresses and CIDRs (`10.0.0.0/8, ::1`); `0`: none',
    metavar: 'HOPS|CIDR,...',
    parse: parseTrustProxy,
    default: { kind: 'none' },
    defaultText: "none (the socket's address)",
    description: "proxies whose `X-Forwarded-For` is believed for anonymous callers' addresses",
  }),
  corsOrigins: text<CorsOrigins | undefined, 'http'>({
    variable: 'PETSTORE_CORS_ORIGINS',
    flag: 'cors-origins',
    section: 'http',
    accepts: '`*` or comma-separated origins exactly as browsers send them (`https://app.example.com`, no path)',
    metavar: "'*'|ORIGIN,...",
    parse: parseCorsOrigins,
    default: undefined,
    defaultText: 'none: CORS off',
    description: 'the origins CORS allows',
  }),
  deprecatedAt: text({
    variable: 'PETSTORE_DEPRECATION_DATE',
    section: 'http',
    accepts: 'a date (`2026-01-01`) or an RFC 3339 time (`2026-01-01T12:00:00Z`)',
    metavar: 'DATE',
    parse: parseDate,
    show: (date) => date.toISOString().slice(0, 10),
    default: DEFAULT_DEPRECATED_AT,
    description: 'the `Deprecation` date of `getPet`',
  }),
  accessLog: onOff({
    variable: 'PETSTORE_ACCESS_LOG',
    flag: 'access-log',
    section: 'http',
    default: false,
    deployed: true,
    description: 'one JSON line per request (see [operating.md](operating.md)), whatever `PETSTORE_LOG_LEVEL` says',
  }),
  store: oneOf({
    variable: 'PETSTORE_STORE',
    flag: 'store',
    section: 'store',
    values: STORES,
    default: 'memory',
    deployed: 'redis',
    description: 'where the records and the quota counters live (table below)',
  }),
  dataDir: text({
    variable: 'PETSTORE_DATA_DIR',
    flag: 'data-dir',
    section: 'store',
    accepts: 'a directory path',
    metavar: 'DIR',
    parse: anyText,
    default: undefined,
    defaultText: 'none; required with `pglite`',
    description: 'with `pglite`: the directory its records are kept in (PGlite, PostgreSQL in this process), created if missing; one process at a time opens it',
  }),
  redisUrl: text({
    variable: 'REDIS_URL',
    flag: 'redis-url',
    section: 'redis',
    accepts: '`redis://` or `rediss://` URL',
    metavar: 'URL',
    parse: parseRedisUrl,
    default: 'redis://127.0.0.1:6379',
    description: 'the Redis to use (with `postgres`, for the quota counters, strikes and bans); printed without its password',
  }),
  redisClusterNodes: text({
    variable: 'REDIS_CLUSTER_NODES',
    flag: 'redis-cluster-nodes',
    section: 'redis',
    accepts: 'comma-separated `host:port` of some or all masters, IPv6 as `[::1]:7000`',
    metavar: 'HOST:PORT,...',
    parse: parseNodeAddresses,
    default: undefined,
    defaultText: 'none',
    description: 'a Redis Cluster instead; with `REDIS_URL` too, a configuration error',
  }),
  redisPassword: text({
    variable: 'REDIS_PASSWORD',
    section: 'redis',
    secret: true,
    accepts: 'any text',
    metavar: 'PASSWORD',
    parse: anyText,
    default: undefined,
    defaultText: 'none',
    description: "the password of every node of the Cluster (only with `REDIS_CLUSTER_NODES`; one Redis's goes in its URL); no flag: a command line shows in the process list",
  }),
  redisPrefix: text({
    variable: 'PETSTORE_REDIS_PREFIX',
    flag: 'redis-prefix',
    section: 'redis',
    accepts: 'text without braces',
    metavar: 'P',
    parse: parseRedisPrefix,
    default: 'petstore:',
    description: 'prefix of every Redis key written',
  }),
  databaseUrl: text({
    variable: 'DATABASE_URL',
    flag: 'database-url',
    section: 'postgres',
    accepts: '`postgres://USER:PASSWORD@HOST:5432/DATABASE` (`postgresql://` too; a host and a database are required)',
    metavar: 'URL',
    parse: parseDatabaseUrl,
    default: DEFAULT_DATABASE_URL,
    description: 'with `postgres`: the PostgreSQL that keeps the records; printed without its password',
  }),
  pgPoolSize: wholeNumber({
    variable: 'PETSTORE_PG_POOL',
    flag: 'pg-pool',
    section: 'postgres',
    min: 1,
    max: 1_000,
    default: 10,
    description:
      'with `postgres`: pool connections each instance keeps to PostgreSQL for writes and transactions, beside one for pipelined reads (see [Connections and instances](persistence-and-upgrades.md#connections-and-instances))',
  }),
  pgTimeoutMs: wholeNumber({
    variable: 'PETSTORE_PG_TIMEOUT_MS',
    flag: 'pg-timeout-ms',
    section: 'postgres',
    min: 100,
    max: 60_000,
    metavar: 'MS',
    default: undefined,
    // The store's own default (POSTGRES_TIMEOUT_MS of the PostgreSQL adapter, which this room may not import).
    defaultText: "the store's own, `900`, so a request answers within a second",
    description:
      "with `postgres`: how long a request's PostgreSQL calls (connections, statements, transactions; all of one request together) may take before it is answered 503, its statements cancelled in PostgreSQL at three quarters of it; with `pglite`: how long they may wait for their turn (PGlite runs one call at a time)",
  }),
  plans: text<PlanCatalog, 'plans'>({
    variable: 'PETSTORE_PLANS',
    flag: 'plans',
    section: 'plans',
    accepts: 'the path of a JSON plans file (see [plans.md](plans.md))',
    metavar: 'FILE',
    parse: (path) => readPlansFile(path, { operations: PET_STORE_OPERATION_IDS, routes: PET_STORE_ROUTES, reservedRuleNames: [RATE_LIMIT_STATUS_RULE.name] }),
    default: NO_FILE_PLANS,
    defaultText: 'none: the built-in plans only',
    description: 'plans of named rules (operations matched, costs, shadow rules, refunds) that keys name beside the built-in `free`, `pro`, `business` and `enterprise`; read once at start, every mistake reported with its JSON path',
  }),
  apiKeys: text<readonly ApiKeyEntry[], 'keys'>({
    variable: 'PETSTORE_API_KEYS',
    flag: 'api-keys',
    section: 'keys',
    secret: true,
    accepts: `comma-separated \`KEY:PLAN\` (\`free\`, \`pro\`, \`business\` or a plan of \`PETSTORE_PLANS\`) or \`KEY:enterprise:PER_MINUTE:PER_DAY\` (each limit at most ${MAX_RULE_LIMIT}), each optionally ending in \`:staff\` (or \`:customer\`, the default)`,
    metavar: 'KEY:PLAN[:staff],...',
    parse: parseApiKeys,
    default: [],
    defaultText: 'none; demo keys in development',
    description: 'the keys every instance holds itself, whatever the store; described, never echoed, in a refusal',
  }),
  anonymousPerMinute: wholeNumber({
    variable: 'PETSTORE_ANONYMOUS_PER_MINUTE',
    section: 'quota',
    min: 1,
    max: 1_000_000_000,
    default: 60,
    description: 'requests per minute per client address without a valid key',
  }),
  quotaFallback: oneOf({
    variable: 'PETSTORE_QUOTA_FALLBACK',
    flag: 'quota-fallback',
    section: 'quota',
    values: QUOTA_FALLBACKS,
    default: 'local',
    description: 'the quota check while its Redis is down (see [Outages](operating.md#outages))',
  }),
  banStrikes: wholeNumber({ variable: 'PETSTORE_BAN_STRIKES', section: 'ban', min: 1, max: MAX_BAN_STRIKES, default: DEFAULT_BAN_POLICY.strikes, description: 'strikes that ban a key' }),
  banWindowSeconds: wholeNumber({
    variable: 'PETSTORE_BAN_WINDOW_SECONDS',
    section: 'ban',
    min: 1,
    max: 86_400,
    default: DEFAULT_BAN_POLICY.strikeWindowMs / 1_000,
    description: 'seconds the strikes must fall within',
  }),
  banSeconds: wholeNumber({ variable: 'PETSTORE_BAN_SECONDS', section: 'ban', min: 1, max: 2_592_000, default: DEFAULT_BAN_POLICY.banMs / 1_000, description: 'length of a ban, in seconds' }),
  adminPort: wholeNumber({
    variable: 'PETSTORE_ADMIN_PORT',
    flag: 'admin-port',
    section: 'admin',
    min: 0,
    max: 65_535,
    default: undefined,
    defaultText: 'none: no admin listener',
    description: 'the admin listener (`/metrics`, `/healthz`, `/readyz`); `0`: any free port, printed',
  }),
  adminHost: text({ variable: 'PETSTORE_ADMIN_HOST', flag: 'admin-host', section: 'admin', accepts: 'a host name or address', metavar: 'H', parse: anyText, default: '127.0.0.1', description: 'the address of the admin listener' }),
  adminToken: text({
    variable: 'PETSTORE_ADMIN_TOKEN',
    section: 'admin',
    secret: true,
    accepts: ADMIN_TOKEN_SHAPE,
    metavar: 'TOKEN',
    parse: parseAdminToken,
    default: undefined,
    defaultText: 'none: no admin API',
    description:
      'the bearer token of the admin API (keys managed over HTTP on the admin listener; see [The admin API](keys.md#the-admin-api)); needs `PETSTORE_ADMIN_PORT`; never logged nor printed; no flag: a command line shows in the process list',
  }),
  readyOnDegraded: oneOf({
    variable: 'PETSTORE_READY_ON_DEGRADED',
    flag: 'ready-on-degraded',
    section: 'admin',
    values: DEGRADED_READINESS,
    default: 'ready',
    description:
      '`/readyz` while the API is served without a store (with `postgres`, its quota Redis down under `PETSTORE_QUOTA_FALLBACK` `local` or `allow`): `ready` answers 200 `degraded`, `fail` answers 503 (see [operating.md](operating.md))',
  }),
  traces: oneOf({
    variable: 'PETSTORE_TRACES',
    flag: 'traces',
    section: 'traces',
    values: TRACES_MODES,
    default: 'auto',
    description:
      'OpenTelemetry spans of every request and store call, through `@opentelemetry/api` to the SDK the process registered: `auto` when one has registered a tracer provider before the server starts, `on` whatever is registered (an error without `@opentelemetry/api`), `off` none (see [Traces](operating.md#traces))',
  }),
  tracesRatio: text({
    variable: 'PETSTORE_TRACES_RATIO',
    flag: 'traces-ratio',
    section: 'traces',
    accepts: 'a number above 0 and at most 1',
    metavar: 'SHARE',
    parse: parseShare,
    default: 1,
    description:
      'the share of requests without a sampled caller (`traceparent`) offered to the SDK, drawn before its sampler runs: the others cost no span at all. Keep the SDK sampling every offered request (`ParentBased(AlwaysOn)`) and set the share here (see [Traces](operating.md#traces))',
  }),
  shutdownGraceMs: wholeNumber({
    variable: 'PETSTORE_SHUTDOWN_GRACE_MS',
    flag: 'shutdown-grace-ms',
    section: 'shutdown',
    min: 0,
    max: 600_000,
    metavar: 'MS',
    default: 10_000,
    description: 'how long, after the drain, a shutdown lets requests on accepted connections finish before cutting them',
  }),
  // Deployed behind a load balancer, it needs a few of its readiness probes to see the 503; locally nothing does.
  drainSeconds: wholeNumber({
    variable: 'PETSTORE_DRAIN_SECONDS',
    flag: 'drain-seconds',
    section: 'shutdown',
    min: 0,
    max: 600,
    metavar: 'S',
    default: 0,
    deployed: 10,
    description: 'after SIGTERM, how long the server keeps accepting and answering while `/readyz` says 503',
  }),
  workers: wholeNumber({
    variable: 'PETSTORE_WORKERS',
    flag: 'workers',
    section: 'workers',
    min: 1,
    max: MAX_WORKERS,
    auto: availableParallelism,
    default: 1,
    description: 'server processes on the one port, `auto`: one per core the process may use; more than 1 needs `redis` or `postgres` (see [Workers](operating.md#workers))',
  }),
} as const;

export type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
