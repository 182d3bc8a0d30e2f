import 'reflect-metadata';
import { Container, type ContainerModule } from 'inversify';
import { SystemClock } from '../../adapters/system/system-clock.js';
import type { Clock } from '../../ports/clock.js';
import type { PetStoreConfig } from '../config/config.js';
import { coreModule } from './core-module.js';
import { createLogger, type PetStoreLogger } from '../logging/logger.js';
import { readinessPolicyOf } from '../admin/readiness.js';
import { loggingModule } from './logging-module.js';
import { memoryStoresModule } from './memory-stores-module.js';
import { pgliteStoresModule } from './pglite-stores-module.js';
import { postgresStoresModule } from './postgres-stores-module.js';
import { redisStoresModule } from './redis-stores-module.js';
import { TOKENS } from './tokens.js';
import { traceStoreCalls } from './traced-stores.js';

export interface ContainerOverrides {
  /** Tests drive time instead of sleeping. */
  readonly clock?: Clock;
  /** Where logs go; default: a logger on stdout at the configured level. */
  readonly logger?: PetStoreLogger;
  /** How long a Redis command may take: the server's default is short, an operator's command (the CLI) waits longer. */
  readonly redisCommandTimeoutMs?: number;
  /** PostgreSQL's pending migrations are applied when the pool opens (the server, `petstore keys`); `petstore migrate` applies them itself. */
  readonly migrateOnOpen?: boolean;
}

function storesModule(config: PetStoreConfig, overrides: ContainerOverrides): ContainerModule {
  const quotas = { quotaClock: overrides.clock, commandTimeoutMs: overrides.redisCommandTimeoutMs };
  switch (config.store) {
    case 'memory':
      return memoryStoresModule;
    case 'redis':
      return redisStoresModule(quotas);
    case 'postgres':
      return postgresStoresModule({ ...quotas, migrateOnOpen: overrides.migrateOnOpen ?? true });
    case 'pglite':
      return pgliteStoresModule;
  }
}

export function buildContainer(config: PetStoreConfig, overrides: ContainerOverrides = {}): Container {
  const container = new Container();
  container.bind(TOKENS.config).toConstantValue(config);
  container.bind(TOKENS.clock).toConstantValue(overrides.clock ?? new SystemClock());
  const stores = storesModule(config, overrides);
  container.bind(TOKENS.logger).toConstantValue(overrides.logger ?? createLogger(config.logLevel));
  const quotaFallback = { active: false };
  container.bind(TOKENS.quotaFallback).toConstantValue(quotaFallback);
  container
    .bind(TOKENS.metrics)
    .toResolvedValue(
      // prom-client is loaded by the processes that serve /metrics, not by every CLI command.
      async (probes) =>
        config.adminPort === undefined ? null : (await import('../admin/metrics.js')).createMetrics(probes, readinessPolicyOf(config).fallbacks, () => quotaFallback.active),
      [TOKENS.storeProbes],
    )
    .inSingletonScope();
  traceStoreCalls(container, config);
  container.load(coreModule, stores, loggingModule);
  return container;
}
