import type { ServiceIdentifier } from 'inversify';
import type { PetStoreHttpServer } from '../../adapters/http/http-server.js';
import type { RateLimitStatus } from '../../adapters/http/pipeline/rate-limit-status.js';
import type { MigrationReport } from '../../adapters/postgres/migrate.js';
import type { OrderService } from '../../domain/orders/order-service.js';
import type { PetCatalog } from '../../domain/pets/pet-catalog.js';
import type { RequestAdmission } from '../../domain/quota/request-admission.js';
import type { ApiKeyRegistry, KeyAdmin } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { ConcurrencySlots } from '../../ports/concurrency-slots.js';
import type { CreditLedger } from '../../ports/credit-ledger.js';
import type { IdempotencyStore } from '../../ports/idempotency-store.js';
import type { OrderRepository } from '../../ports/order-repository.js';
import type { PetRepository } from '../../ports/pet-repository.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { Tracer } from '../../ports/tracer.js';
import type { PetStoreConfig } from '../config/config.js';
import type { PetStoreLogger } from '../logging/logger.js';
import type { PetStoreMetrics } from '../admin/metrics.js';
import type { StoreOutageLog } from '../logging/store-outage-log.js';
import type { StoreProbe } from '../admin/store-probes.js';

/** Typed service identifiers: `container.get(TOKENS.catalog)` is a PetCatalog. */
export const TOKENS = {
  config: Symbol('PetStoreConfig') as ServiceIdentifier<PetStoreConfig>,
  clock: Symbol('Clock') as ServiceIdentifier<Clock>,
  petRepository: Symbol('PetRepository') as ServiceIdentifier<PetRepository>,
  orderRepository: Symbol('OrderRepository') as ServiceIdentifier<OrderRepository>,
  idempotencyStore: Symbol('IdempotencyStore') as ServiceIdentifier<IdempotencyStore>,
  apiKeyRegistry: Symbol('ApiKeyRegistry') as ServiceIdentifier<ApiKeyRegistry>,
  quotaStore: Symbol('QuotaStore') as ServiceIdentifier<QuotaStore>,
  /** Where plans' concurrency caps hold their slots: beside the quota store, shared as it is. */
  concurrencySlots: Symbol('ConcurrencySlots') as ServiceIdentifier<ConcurrencySlots>,
  /** Plans' credit balances and their usage: records, kept where the shop's records are (memory, Redis, PostgreSQL). */
  creditLedger: Symbol('CreditLedger') as ServiceIdentifier<CreditLedger>,
  /** Keys issued at run time (petstore keys): bound only where every instance shares them. */
  keyAdmin: Symbol('KeyAdmin') as ServiceIdentifier<KeyAdmin>,
  /** The database's schema brought to this code's version (`dryRun`: only said what would be applied): PETSTORE_STORE=postgres. */
  migrateSchema: Symbol('MigrateSchema') as ServiceIdentifier<(options: { readonly dryRun: boolean }) => Promise<MigrationReport>>,
  catalog: Symbol('PetCatalog') as ServiceIdentifier<PetCatalog>,
  orders: Symbol('OrderService') as ServiceIdentifier<OrderService>,
  admission: Symbol('RequestAdmission') as ServiceIdentifier<RequestAdmission>,
  /** GET /rate_limit's reads, over the admission's registry and quota store. */
  rateLimitStatus: Symbol('RateLimitStatus') as ServiceIdentifier<RateLimitStatus>,
  httpServer: Symbol('HttpServer') as ServiceIdentifier<PetStoreHttpServer>,
  logError: Symbol('LogError') as ServiceIdentifier<(message: string, error: unknown, requestId?: string) => void>,
  logger: Symbol('Logger') as ServiceIdentifier<PetStoreLogger>,
  /** One line when a store goes away and one when it is back. */
  outageLog: Symbol('StoreOutageLog') as ServiceIdentifier<StoreOutageLog>,
  /** The stores readiness pings. */
  storeProbes: Symbol('StoreProbes') as ServiceIdentifier<readonly StoreProbe[]>,
  /** Whether the quota outage fallback decides in Redis's place now: false with no fallback (memory store, deny). */
  quotaFallback: Symbol('QuotaFallbackState') as ServiceIdentifier<{ active: boolean }>,
  /** Where spans go (PETSTORE_TRACES); null: tracing is off, and nothing makes a span. */
  tracer: Symbol('Tracer') as ServiceIdentifier<Tracer | null>,
  /** null without an admin listener: nothing is counted. */
  metrics: Symbol('Metrics') as ServiceIdentifier<PetStoreMetrics | null>,
} as const;
