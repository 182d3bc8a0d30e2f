import { randomBytes } from 'node:crypto';
import type { PetStoreHttpServer } from '../adapters/http/http-server.js';
import type { RequestHandlerDependencies } from '../adapters/http/request-handler.js';
import type { MigrationReport } from '../adapters/postgres/migrate.js';
import type { KeyAdmin } from '../ports/api-key-registry.js';
import type { Clock } from '../ports/clock.js';
import type { CreditLedger } from '../ports/credit-ledger.js';
import type { QuotaStore } from '../ports/quota-store.js';
import type { PetStoreConfig } from './config/config.js';
import { buildContainer, type ContainerOverrides } from './container/build-container.js';
import { TOKENS } from './container/tokens.js';
import type { PetStoreMetrics } from './admin/metrics.js';
import type { StoreProbe } from './admin/store-probes.js';
import type { AdminKeyApi } from '../adapters/http/admin-key-handler.js';
import { assembleKeyOperations } from './keys/assemble-key-operations.js';
import type { KeyOperations } from './keys/key-operations.js';
import type { KeyChangeSource } from './logging/key-change-log.js';
import { createLogger, type PetStoreLogger } from './logging/logger.js';

export interface PetStoreAppOptions {
  /** Tests drive time instead of sleeping. */
  readonly clock?: Clock;
  /** Where logs go; default: a logger on stdout at the configured level. */
  readonly logger?: PetStoreLogger;
  /**
   * How long a call to Redis or PostgreSQL may take. Default: a request's deadline; an
   * operator's command (the CLI) waits longer, since no client is waiting on it.
   */
  readonly storeTimeoutMs?: number;
  /** PostgreSQL's pending migrations are applied when the pool opens (default); `petstore migrate` applies them itself. */
  readonly migrateOnOpen?: boolean;
}

/**
 * The whole application for one configuration: its stores, use cases, HTTP server, key verbs
 * and admin pieces, each built on first use and shared after, all closed by `close`. The
 * server, `createPetStore`, every CLI command and the workers' supervisor build it here and
 * nowhere else; the Inversify container inside wires the stores the configuration names.
 */
export interface PetStoreApp {
  readonly config: PetStoreConfig;
  readonly clock: Clock;
  readonly log: PetStoreLogger;
  /** What createRequestHandler and createHttpServer take: the use cases, the admission and GET /rate_limit's reads. */
  handlerDependencies(): Promise<RequestHandlerDependencies>;
  /** The API's node:http server (not listening), its request observer wired to the access log and the metrics. */
  httpServer(): Promise<PetStoreHttpServer>;
  /** The keys issued at run time, in the store every instance shares. */
  keyAdmin(): Promise<KeyAdmin>;
  /** The quota store the servers count in. */
  quotas(): Promise<QuotaStore>;
  /** The credit ledger the servers spend from. */
  credits(): Promise<CreditLedger>;
  /** The key verbs over this app's stores, each change logged as made by `by`. */
  keyOperations(by: KeyChangeSource): Promise<KeyOperations>;
  /** The admin listener's key routes; undefined without PETSTORE_ADMIN_TOKEN. */
  adminKeyApi(): Promise<AdminKeyApi | undefined>;
  /** The PostgreSQL schema brought to this code's version (`dryRun`: only said what would be applied). */
  migrateSchema(options: { readonly dryRun: boolean }): Promise<MigrationReport>;
  /** null without an admin listener: nothing is counted. */
  metrics(): Promise<PetStoreMetrics | null>;
  /** The stores readiness pings. */
  storeProbes(): Promise<readonly StoreProbe[]>;
  /** Where a failure answered 500 is logged. */
  logError(message: string, error: unknown, requestId?: string): void;
  /** Closes every store connection this app opened; the logger stays open (its owner flushes it). */
  close(): Promise<void>;
}

export function composePetStore(config: PetStoreConfig, options: PetStoreAppOptions = {}): PetStoreApp {
  const log = options.logger ?? createLogger(config.logLevel);
  const overrides: ContainerOverrides = {
    logger: log,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.migrateOnOpen === undefined ? {} : { migrateOnOpen: options.migrateOnOpen }),
    ...(options.storeTimeoutMs === undefined ? {} : { redisCommandTimeoutMs: options.storeTimeoutMs }),
  };
  const container = buildContainer(options.storeTimeoutMs === undefined ? config : { ...config, pgTimeoutMs: options.storeTimeoutMs }, overrides);
  const clock = container.get(TOKENS.clock);
  const keyOperations = async (by: KeyChangeSource): Promise<KeyOperations> =>
    assembleKeyOperations(
      {
        admin: await container.getAsync(TOKENS.keyAdmin),
        clock,
        quotas: () => container.getAsync(TOKENS.quotaStore),
        credits: () => container.getAsync(TOKENS.creditLedger),
        logger: log.logger,
      },
      { ban: config.ban, by, randomBytes },
    );
  return {
    config,
    clock,
    log,
    handlerDependencies: async () => {
      const [catalog, orders, idempotency, admission, rateLimitStatus, tracer] = await Promise.all([
        container.getAsync(TOKENS.catalog),
        container.getAsync(TOKENS.orders),
        container.getAsync(TOKENS.idempotencyStore),
        container.getAsync(TOKENS.admission),
        container.getAsync(TOKENS.rateLimitStatus),
        container.getAsync(TOKENS.tracer),
      ]);
      return { catalog, orders, idempotency, admission, rateLimitStatus, tracer: tracer ?? undefined };
    },
    httpServer: () => container.getAsync(TOKENS.httpServer),
    keyAdmin: () => container.getAsync(TOKENS.keyAdmin),
    quotas: () => container.getAsync(TOKENS.quotaStore),
    credits: () => container.getAsync(TOKENS.creditLedger),
    keyOperations,
    // Its routes' schemas are loaded by the admin listener alone, not by the CLI's key verbs.
    adminKeyApi: async () =>
      config.adminToken === undefined ? undefined : (await import('./admin/keys/admin-key-api.js')).createAdminKeyApi({ token: config.adminToken, keys: await keyOperations('admin_api'), clock, plans: config.plans }),
    migrateSchema: async (migration) => {
      if (!container.isBound(TOKENS.migrateSchema)) throw new Error(`migrations are PostgreSQL's: this app's store is ${config.store}`);
      return (await container.getAsync(TOKENS.migrateSchema))(migration);
    },
    metrics: () => container.getAsync(TOKENS.metrics),
    storeProbes: () => container.getAsync(TOKENS.storeProbes),
    logError: (message, error, requestId) => container.get(TOKENS.logError)(message, error, requestId),
    close: () => container.unbindAllAsync(),
  };
}
