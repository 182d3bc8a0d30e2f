import { parseTrustProxy, type TrustProxy } from '../../adapters/http/pipeline/client-address.js';
import { parseCorsOrigins, type CorsOrigins } from '../../adapters/http/pipeline/cors.js';
import { DEFAULT_DEPRECATED_AT } from '../../adapters/http/request-handler.js';
import type { RedisNodeAddress } from '../../adapters/redis/redis-cluster-client.js';
import { ROLES, type Role } from '../../domain/access/caller.js';
import { DEFAULT_BAN_POLICY, MAX_BAN_STRIKES } from '../../domain/quota/ban-policy.js';
import { MAX_RULE_LIMIT } from '../../domain/quota/decidable-policy.js';
import { parsePlan } from '../../domain/quota/plan-parser.js';
import type { Plan } from '../../domain/quota/plan.js';
import type { BanPolicy } from '../../domain/quota/quota-rule.js';
import { err, ok, type Result } from '../../domain/result.js';
import { availableParallelism } from 'node:os';

export const ENVIRONMENTS = ['development', 'test', 'staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];
export const STORES = ['memory', 'redis', 'postgres'] as const;
export type StoreKind = (typeof STORES)[number];
/** What the quota check does while its store is unreachable. */
export const QUOTA_FALLBACKS = ['local', 'allow', 'deny'] as const;
export type QuotaFallback = (typeof QUOTA_FALLBACKS)[number];
/** What /readyz answers while a store is down that the outage policy serves the API without: 200 (`ready`) or 503 (`fail`). */
export const DEGRADED_READINESS = ['ready', 'fail'] as const;
export type DegradedReadiness = (typeof DEGRADED_READINESS)[number];
/** pino's levels; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ConfiguredKey {
  readonly key: string;
  readonly plan: Plan;
  readonly role: Role;
}

export interface PetStoreConfig {
  readonly environment: Environment;
  readonly host: string;
  readonly port: number;
  readonly store: StoreKind;
  readonly redisUrl: string;
  /** REDIS_CLUSTER_NODES, with REDIS_PASSWORD: a Redis Cluster instead of the one Redis at redisUrl. */
  readonly redisCluster: RedisClusterConfig | undefined;
  readonly redisPrefix: string;
  /** PETSTORE_STORE=postgres: where the records live (the quota counters stay in Redis). */
  readonly databaseUrl: string;
  /** Connections each instance keeps to PostgreSQL. */
  readonly pgPoolSize: number;
  /** How long a PostgreSQL call may take before its request is answered 503; undefined: the store's own (POSTGRES_TIMEOUT_MS). */
  readonly pgTimeoutMs: number | undefined;
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

export type Environ = Readonly<Record<string, string | undefined>>;

/** The variables of the ban policy: `petstore keys show` reads a key's strikes under the servers' policy too. */
export const BAN_VARIABLES = { strikes: 'PETSTORE_BAN_STRIKES', strikeWindow: 'PETSTORE_BAN_WINDOW_SECONDS', ban: 'PETSTORE_BAN_SECONDS' } as const;

/** `scheme://user:secret@host` written `scheme://user:***@host`: for messages and logs. */
export const withoutPassword = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');

/** More processes than this on one machine would be a typo, not a plan. */
const MAX_WORKERS = 256;

export const DEFAULT_DATABASE_URL = 'postgres://127.0.0.1:5432/petstore';

function parseDatabaseUrl(raw: string): Result<string, string> {
  if (!/^postgres(ql)?:\/\//.test(raw)) return err('must start with postgres:// or postgresql://');
  try {
    const url = new URL(raw);
    return url.hostname === '' || url.pathname.length <= 1 ? err('must name a host and a database: postgres://USER@HOST:5432/DATABASE') : ok(raw);
  } catch {
    return err('is not a URL: postgres://USER@HOST:5432/DATABASE');
  }
}

/**
 * Reads the configuration (docs/configuration.md) from environment variables. Every mistake is reported,
 * one line each, so an operator fixes them all in one go.
 */
export function loadConfig(environ: Environ): Result<PetStoreConfig, readonly string[]> {
  const problems: string[] = [];
  const read = <T>(name: string, fallback: T, parse: (raw: string) => Result<T, string>): T => {
    const raw = environ[name];
    if (raw === undefined || raw === '') return fallback;
    const parsed = parse(raw);
    if (parsed.ok) return parsed.value;
    // Keys and tokens are secrets: a bad PETSTORE_API_KEYS or PETSTORE_ADMIN_TOKEN is described, never echoed; a URL is echoed without its password.
    problems.push(SECRET_VARIABLES.has(name) ? `${name}: ${parsed.error}` : `${name}=${JSON.stringify(withoutPassword(raw))}: ${parsed.error}`);
    return fallback;
  };

  const environment = read('PETSTORE_ENV', 'development' as Environment, oneOf(ENVIRONMENTS));
  const deployed = environment === 'staging' || environment === 'production';
  const config: PetStoreConfig = {
    environment,
    host: read('HOST', '127.0.0.1', (raw) => ok(raw)),
    port: read('PORT', 8080, integerIn(0, 65_535)),
    store: read('PETSTORE_STORE', (deployed ? 'redis' : 'memory') as StoreKind, oneOf(STORES)),
    redisUrl: read('REDIS_URL', 'redis://127.0.0.1:6379', (raw) =>
      /^rediss?:\/\//.test(raw) ? ok(raw) : err('must start with redis:// or rediss://'),
    ),
    redisCluster: redisClusterOf(environ, problems),
    redisPrefix: read('PETSTORE_REDIS_PREFIX', 'petstore:', (raw) =>
      /[{}]/.test(raw) ? err('must not contain braces: they would break the hash tags that keep a key in one slot') : ok(raw),
    ),
    databaseUrl: read('DATABASE_URL', DEFAULT_DATABASE_URL, parseDatabaseUrl),
    pgPoolSize: read('PETSTORE_PG_POOL', 10, integerIn(1, 1_000)),
    pgTimeoutMs: read<number | undefined>('PETSTORE_PG_TIMEOUT_MS', undefined, integerIn(100, 60_000)),
    apiKeys: read('PETSTORE_API_KEYS', [] as ConfiguredKey[], parseApiKeys),
    ban: {
      strikes: read(BAN_VARIABLES.strikes, DEFAULT_BAN_POLICY.strikes, integerIn(1, MAX_BAN_STRIKES)),
      strikeWindowMs: read(BAN_VARIABLES.strikeWindow, DEFAULT_BAN_POLICY.strikeWindowMs / 1000, integerIn(1, 86_400)) * 1000,
      banMs: read(BAN_VARIABLES.ban, DEFAULT_BAN_POLICY.banMs / 1000, integerIn(1, 2_592_000)) * 1000,
    },
    anonymousPerMinute: read('PETSTORE_ANONYMOUS_PER_MINUTE', 60, integerIn(1, 1_000_000_000)),
    quotaFallback: read('PETSTORE_QUOTA_FALLBACK', 'local' as QuotaFallback, oneOf(QUOTA_FALLBACKS)),
    readyOnDegraded: read('PETSTORE_READY_ON_DEGRADED', 'ready' as DegradedReadiness, oneOf(DEGRADED_READINESS)),
    deprecatedAt: read('PETSTORE_DEPRECATION_DATE', DEFAULT_DEPRECATED_AT, parseDate),
    trustProxy: read<TrustProxy>('PETSTORE_TRUST_PROXY', { kind: 'none' }, parseTrustProxy),
    corsOrigins: read<CorsOrigins | undefined>('PETSTORE_CORS_ORIGINS', undefined, parseCorsOrigins),
    logLevel: read('PETSTORE_LOG_LEVEL', 'info' as LogLevel, oneOf(LOG_LEVELS)),
    accessLog: read('PETSTORE_ACCESS_LOG', deployed, (raw) => (raw === 'on' ? ok(true) : raw === 'off' ? ok(false) : err('must be on or off'))),
    adminPort: read<number | undefined>('PETSTORE_ADMIN_PORT', undefined, integerIn(0, 65_535)),
    adminHost: read('PETSTORE_ADMIN_HOST', '127.0.0.1', (raw) => ok(raw)),
    adminToken: read<string | undefined>('PETSTORE_ADMIN_TOKEN', undefined, parseAdminToken),
    shutdownGraceMs: read('PETSTORE_SHUTDOWN_GRACE_MS', 10_000, integerIn(0, 600_000)),
    // Deployed behind a load balancer, it needs a few of its readiness probes to see the 503; locally nothing does.
    drainSeconds: read('PETSTORE_DRAIN_SECONDS', deployed ? 10 : 0, integerIn(0, 600)),
    workers: read('PETSTORE_WORKERS', 1, (raw) =>
      raw === 'auto' ? ok(availableParallelism()) : /^[0-9]+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= MAX_WORKERS ? ok(Number(raw)) : err(`must be auto or a whole number from 1 to ${MAX_WORKERS}`),
    ),
  };
  if (config.workers > 1 && config.store === 'memory') {
    problems.push(
      `PETSTORE_WORKERS=${config.workers} needs a shared store: each worker's memory store would keep its own quotas and records. Set PETSTORE_STORE=redis or postgres, or PETSTORE_WORKERS=1`,
    );
  }
  if (config.adminToken !== undefined && config.adminPort === undefined) {
    problems.push('PETSTORE_ADMIN_TOKEN guards the key routes of the admin listener, which needs PETSTORE_ADMIN_PORT');
  }
  if (deployed && config.apiKeys.length === 0) {
    problems.push(`PETSTORE_API_KEYS is required in ${environment}: comma-separated KEY:PLAN entries`);
  }
  return problems.length === 0 ? ok(config) : err(problems);
}

const SECRET_VARIABLES = new Set(['PETSTORE_API_KEYS', 'PETSTORE_ADMIN_TOKEN']);

/** At least 32 characters, too many to guess; visible ASCII only, as a bearer token is sent. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

const parseAdminToken = (raw: string): Result<string, string> =>
  raw.length >= MIN_ADMIN_TOKEN_LENGTH && raw.length <= 256 && /^[\x21-\x7e]+$/.test(raw)
    ? ok(raw)
    : err(`must be ${MIN_ADMIN_TOKEN_LENGTH} to 256 visible ASCII characters, no spaces (openssl rand -hex 32 makes one)`);

/**
 * REDIS_CLUSTER_NODES names a Cluster, REDIS_URL one Redis: both set is a mistake, not a
 * choice made for the operator. A Cluster's password is REDIS_PASSWORD, the same on every
 * node; one Redis's stays in its URL, so REDIS_PASSWORD without a Cluster is a mistake too.
 */
function redisClusterOf(environ: Environ, problems: string[]): RedisClusterConfig | undefined {
  const given = (name: string): string | undefined => (environ[name] === '' ? undefined : environ[name]);
  const nodes = given('REDIS_CLUSTER_NODES');
  const password = given('REDIS_PASSWORD');
  if (nodes === undefined) {
    if (password !== undefined) {
      problems.push('REDIS_PASSWORD is for the nodes of REDIS_CLUSTER_NODES; the password of one Redis goes in REDIS_URL (redis://:PASSWORD@host:6379)');
    }
    return undefined;
  }
  if (given('REDIS_URL') !== undefined) {
    problems.push('REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis, or REDIS_CLUSTER_NODES for a Redis Cluster');
  }
  const parsed = parseNodeAddresses(nodes);
  if (!parsed.ok) {
    problems.push(`REDIS_CLUSTER_NODES=${JSON.stringify(nodes)}: ${parsed.error}`);
    return undefined;
  }
  return password === undefined ? { nodes: parsed.value } : { nodes: parsed.value, password };
}

/** `host:port,host:port`, an IPv6 host in brackets: `[::1]:7000`. */
function parseNodeAddresses(raw: string): Result<RedisNodeAddress[], string> {
  const nodes: RedisNodeAddress[] = [];
  for (const entry of raw.split(',').map((part) => part.trim())) {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(entry);
    const port = Number(match?.[3]);
    if (match === null || port < 1 || port > 65_535) {
      return err(`${JSON.stringify(entry)} is not host:port; expected a comma-separated list of nodes such as 10.0.0.1:7000,10.0.0.2:7000`);
    }
    nodes.push({ host: match[1] ?? match[2] ?? '', port });
  }
  return ok(nodes);
}

const oneOf =
  <T extends string>(allowed: readonly T[]) =>
  (raw: string): Result<T, string> =>
    (allowed as readonly string[]).includes(raw) ? ok(raw as T) : err(`must be one of ${allowed.join(', ')}`);

const integerIn =
  (min: number, max: number) =>
  (raw: string): Result<number, string> => {
    const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    return value >= min && value <= max ? ok(value) : err(`must be a whole number from ${min} to ${max}`);
  };

const DATE_OR_TIME = /^(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** `2026-01-01`, or an RFC 3339 time such as `2026-01-01T12:00:00Z`: Date alone takes `1` for 2001 and rolls 2026-02-30 over to March. */
function parseDate(raw: string): Result<Date, string> {
  const day = DATE_OR_TIME.exec(raw)?.[1];
  const midnight = new Date(`${day}T00:00:00Z`);
  const date = new Date(raw);
  const valid = day !== undefined && !Number.isNaN(midnight.getTime()) && midnight.toISOString().startsWith(day) && !Number.isNaN(date.getTime());
  return valid ? ok(date) : err('must be a date such as 2026-01-01, or a time such as 2026-01-01T12:00:00Z');
}

function parseApiKeys(raw: string): Result<ConfiguredKey[], string> {
  const keys: ConfiguredKey[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of raw.split(',').entries()) {
    const parsed = parseApiKey(entry.trim());
    if (!parsed.ok) return err(`entry ${index + 1}: ${parsed.error}`);
    if (seen.has(parsed.value.key)) return err(`entry ${index + 1}: the same key is listed twice`);
    seen.add(parsed.value.key);
    keys.push(parsed.value);
  }
  return ok(keys);
}

/** A key as a PETSTORE_API_KEYS entry, the shape parseApiKey reads: how a supervisor hands its demo keys to its workers. */
export function apiKeyEntry({ key, plan, role }: ConfiguredKey): string {
  const limits = plan.name === 'enterprise' ? plan.rules.map((rule) => `:${rule.limit}`).join('') : '';
  return `${key}:${plan.name}${limits}:${role}`;
}

const KEY_SHAPE = 'expected KEY:PLAN[:ROLE] with PLAN one of free, pro, business, or KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE]';
const ENTERPRISE_SHAPE = 'an enterprise key is KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE] with two positive whole numbers';

// Messages never echo the key itself, nor any other field: a misplaced comma can put a key anywhere.
function parseApiKey(entry: string): Result<ConfiguredKey, string> {
  const [key = '', planName = '', ...rest] = entry.split(':');
  if (!/^[A-Za-z0-9._~+/=-]{8,256}$/.test(key)) {
    return err('the key must be 8 to 256 characters of letters, digits or ._~+/=-');
  }
  // The role is an optional last field, after the two limits of an enterprise plan.
  const roleAt = planName === 'enterprise' ? 2 : 0;
  if (rest.length > roleAt + 1) return err(planName === 'enterprise' ? ENTERPRISE_SHAPE : KEY_SHAPE);
  const plan = planFromEntry(planName, rest.slice(0, roleAt));
  if (!plan.ok) return plan;
  const roleField = rest[roleAt];
  const role = roleField === undefined ? 'customer' : ROLES.find((known) => known === roleField);
  if (role === undefined) return err('ROLE, the last field, must be customer or staff');
  return ok({ key, plan: plan.value, role });
}

const planFromEntry = (name: string, [perMinute, perDay]: readonly string[]): Result<Plan, string> => {
  const plan = parsePlan({ name, perMinute, perDay });
  if (plan.ok) return plan;
  switch (plan.error.kind) {
    case 'limit_too_large':
      return err(`enterprise limits must be at most ${MAX_RULE_LIMIT}, the most a quota counter holds`);
    case 'limit_not_whole':
      return err(ENTERPRISE_SHAPE);
    case 'unknown_plan':
    case 'limits_not_allowed':
      return err(KEY_SHAPE);
  }
};
