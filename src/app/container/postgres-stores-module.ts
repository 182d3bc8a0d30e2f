import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { migrate } from '../../adapters/postgres/migrate.js';
import { readMigrations } from '../../adapters/postgres/migration-files.js';
import { PostgresApiKeyRegistry } from '../../adapters/postgres/postgres-api-key-registry.js';
import { PostgresIdempotencyStore } from '../../adapters/postgres/postgres-idempotency-store.js';
import { PostgresOrderRepository } from '../../adapters/postgres/postgres-order-repository.js';
import { PostgresPetRepository } from '../../adapters/postgres/postgres-pet-repository.js';
import { openPostgres, type PostgresPool } from '../../adapters/postgres/postgres-pool.js';
import type { RedisClient } from '../../adapters/redis/redis-client.js';
import type { Clock } from '../../ports/clock.js';
import { withoutPassword, type PetStoreConfig } from '../config/config.js';
import { bindIssuedKeys } from './issued-keys.js';
import { bindRedisQuotas, REDIS, redisProbe, type RedisQuotasOptions } from './redis-quotas.js';
import { TOKENS } from './tokens.js';

export const POSTGRES: ServiceIdentifier<PostgresPool> = Symbol('PostgresPool');
const ISSUED_KEYS: ServiceIdentifier<PostgresApiKeyRegistry> = Symbol('IssuedKeys');

export interface PostgresStoresOptions extends RedisQuotasOptions {
  /** Apply pending migrations when the pool opens (the server, `petstore keys`); `petstore migrate` does it itself. */
  readonly migrateOnOpen: boolean;
}

/** The DATABASE_URL as messages name it: never its password. */
export const describeDatabase = (config: PetStoreConfig): string => `${withoutPassword(config.databaseUrl)} (DATABASE_URL)`;

/**
 * The shop's records in PostgreSQL (nothing acknowledged is lost), the quota counters, strikes
 * and bans in Redis (which may lose them): every instance shares both.
 */
export const postgresStoresModule = ({ migrateOnOpen, ...quotas }: PostgresStoresOptions): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bindRedisQuotas(bind, quotas);
    bind<PostgresPool>(POSTGRES)
      .toResolvedValue(
        async (config: PetStoreConfig, logError: (message: string, error: unknown) => void) => {
          const pool = await openPostgres(
            { url: config.databaseUrl, max: config.pgPoolSize, onError: (error) => logError('postgresql connection error', error) },
            describeDatabase(config),
          );
          try {
            if (migrateOnOpen) await migrate(pool, readMigrations());
            return pool;
          } catch (error) {
            await pool.end();
            throw error;
          }
        },
        [TOKENS.config, TOKENS.logError],
      )
      .inSingletonScope()
      .onDeactivation((pool: PostgresPool) => pool.end());
    bind(TOKENS.migrateSchema).toResolvedValue(
      (pool: PostgresPool) => (options: { readonly dryRun: boolean }) => migrate(pool, readMigrations(), options),
      [POSTGRES],
    );
    bind(TOKENS.petRepository)
      .toResolvedValue((pool: PostgresPool, clock: Clock) => new PostgresPetRepository(pool, clock), [POSTGRES, TOKENS.clock])
      .inSingletonScope();
    bind(TOKENS.orderRepository)
      .toResolvedValue((pool: PostgresPool, clock: Clock) => new PostgresOrderRepository(pool, clock), [POSTGRES, TOKENS.clock])
      .inSingletonScope();
    bind(TOKENS.idempotencyStore)
      .toResolvedValue((pool: PostgresPool, clock: Clock) => new PostgresIdempotencyStore(pool, clock), [POSTGRES, TOKENS.clock])
      .inSingletonScope();
    bind(ISSUED_KEYS)
      .toResolvedValue((pool: PostgresPool, clock: Clock) => new PostgresApiKeyRegistry(pool, clock), [POSTGRES, TOKENS.clock])
      .inSingletonScope();
    bindIssuedKeys(bind, ISSUED_KEYS);
    bind(TOKENS.storeProbes).toResolvedValue(
      (pool: PostgresPool, redis: RedisClient) => [{ store: 'postgres', ping: () => pool.query('SELECT 1') }, redisProbe(redis)],
      [POSTGRES, REDIS],
    );
  });
