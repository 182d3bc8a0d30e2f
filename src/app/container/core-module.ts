import { ContainerModule } from 'inversify';
import { minuteRule } from '../../domain/quota/plan.js';
import { OrderService } from '../../domain/orders/order-service.js';
import { PetCatalog } from '../../domain/pets/pet-catalog.js';
import { RequestAdmission, type AdmissionOptions } from '../../domain/quota/request-admission.js';
import { RateLimitStatus } from '../../adapters/http/pipeline/rate-limit-status.js';
import type { OnRequestFinished } from '../../adapters/http/wire/request-finished.js';
import { CONNECTION_LIMITS } from '../../adapters/http/wire/request-limits.js';
import type { PetStoreConfig } from '../config/config.js';
import type { PetStoreLogger } from '../logging/logger.js';
import type { PetStoreMetrics } from '../admin/metrics.js';
import { TOKENS } from './tokens.js';

/** The request-finished hook: the access log and the metrics, each when on; none at all keeps the hot path untraced. */
const requestObserver = (config: PetStoreConfig, log: PetStoreLogger, metrics: PetStoreMetrics | null): OnRequestFinished | undefined => {
  const access = config.accessLog ? log.access : undefined;
  const count = metrics?.observe;
  if (access === undefined) return count;
  if (count === undefined) return access;
  return (event) => {
    count(event);
    access(event);
  };
};

/** Who is limited how: the same for the admission and for GET /rate_limit's reads. */
const admissionOptions = (config: PetStoreConfig): AdmissionOptions => ({
  anonymousPolicy: { rules: [minuteRule(config.anonymousPerMinute)] },
  ban: config.ban,
});

/** The use cases and the HTTP transport: the same in every environment, over whatever stores are bound. */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.catalog)
    .toResolvedValue((pets) => new PetCatalog(pets), [TOKENS.petRepository])
    .inSingletonScope();
  bind(TOKENS.orders)
    .toResolvedValue((orders, clock) => new OrderService(orders, clock), [TOKENS.orderRepository, TOKENS.clock])
    .inSingletonScope();
  bind(TOKENS.admission)
    .toResolvedValue(
      (config, keys, quotas, slots, ledger, clock) => new RequestAdmission(keys, quotas, admissionOptions(config), slots, { ledger, clock }),
      [TOKENS.config, TOKENS.apiKeyRegistry, TOKENS.quotaStore, TOKENS.concurrencySlots, TOKENS.creditLedger, TOKENS.clock],
    )
    .inSingletonScope();
  bind(TOKENS.rateLimitStatus)
    .toResolvedValue(
      (config, keys, quotas, slots, ledger, clock) => new RateLimitStatus(keys, quotas, admissionOptions(config), slots, { ledger, clock }),
      [TOKENS.config, TOKENS.apiKeyRegistry, TOKENS.quotaStore, TOKENS.concurrencySlots, TOKENS.creditLedger, TOKENS.clock],
    )
    .inSingletonScope();
  bind(TOKENS.httpServer)
    .toResolvedValue(
      // Loaded when a server is built: the router and the schemas are most of a CLI command's start otherwise.
      async (config, catalog, orders, idempotency, admission, rateLimitStatus, logError, log, metrics, tracer) =>
        (await import('../../adapters/http/http-server.js')).createHttpServer(
          { catalog, orders, idempotency, admission, rateLimitStatus, tracer: tracer ?? undefined },
          {
            deprecatedAt: config.deprecatedAt,
            trustProxy: config.trustProxy,
            corsOrigins: config.corsOrigins,
            ...CONNECTION_LIMITS,
            logError,
            onFinished: requestObserver(config, log, metrics),
          },
        ),
      [
        TOKENS.config,
        TOKENS.catalog,
        TOKENS.orders,
        TOKENS.idempotencyStore,
        TOKENS.admission,
        TOKENS.rateLimitStatus,
        TOKENS.logError,
        TOKENS.logger,
        TOKENS.metrics,
        TOKENS.tracer,
      ],
    )
    .inSingletonScope();
});
