import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { migrate } from '../../adapters/postgres/migrate.js';
import { readMigrations } from '../../adapters/postgres/migration-files.js';
import { PostgresApiKeyRegistry } from '../../adapters/postgres/postgres-api-key-registry.js';
import { PostgresCreditLedger } from '../../adapters/postgres/postgres-credit-ledger.js';
import { PostgresIdempotencyStore } from '../../adapters/postgres/postgres-idempotency-store.js';
import { PostgresOrderRepository } from '../../adapters/postgres/postgres-order-repository.js';
import { PostgresPetRepository } from '../../adapters/postgres/postgres-pet-repository.js';
import { openPostgres, type PostgresDatabase } from '../../adapters/postgres/postgres-database.js';
import type { RedisClient } from '../../adapters/redis/redis-client.js';
import type { Clock } from '../../ports/clock.js';
import { withoutPassword, type PetStoreConfig } from '../config/config.js';
import { bindIssuedKeys } from './issued-keys.js';
import { bindRedisQuotas, REDIS, redisProbe, type RedisQuotasOptions } from './redis-quotas.js';
import { TOKENS } from './tokens.js';
import type { StoreOutageLog } from '../logging/store-outage-log.js';

export const POSTGRES: ServiceIdentifier<PostgresDatabase> = Symbol('PostgresDatabase');
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
    bind<PostgresDatabase>(POSTGRES)
      .toResolvedValue(
        async (config: PetStoreConfig, outageLog: StoreOutageLog) => {
          const db = await openPostgres(
            {
              url: config.databaseUrl,
              max: config.pgPoolSize,
              ...(config.pgTimeoutMs === undefined ? {} : { timeoutMs: config.pgTimeoutMs }),
              outages: outageLog.listenerFor('postgres'),
            },
            describeDatabase(config),
          );
          try {
            if (migrateOnOpen) await migrate(db, readMigrations());
            return db;
          } catch (error) {
            await db.end();
            throw error;
          }
        },
        [TOKENS.config, TOKENS.outageLog],
      )
      .inSingletonScope()
      .onDeactivation((db: PostgresDatabase) => db.end());
    bind(TOKENS.migrateSchema).toResolvedValue(
      (db: PostgresDatabase) => (options: { readonly dryRun: boolean }) => migrate(db, readMigrations(), options),
      [POSTGRES],
    );
    bind(TOKENS.petRepository)
      .toResolvedValue((db: PostgresDatabase, clock: Clock) => new PostgresPetRepository(db, clock), [POSTGRES, TOKENS.clock])
      .inSingletonScope();
    bind(TOKENS.orderRepository)
      .toResolvedValue((db: PostgresDatabase, clock: Clock) => new PostgresOrderRepository(db, clock), [POSTGRES, TOKENS.clock])
      .inSingletonScope();
    bind(TOKENS.idempotencyStore)
      .toResolvedValue((db: PostgresDatabase, clock: Clock) => new PostgresIdempotencyStore(db, clock), [POSTGRES, TOKENS.clock])
      .inSingletonScope();
    // Balances are records of money: kept with the orders, not in Redis beside the quota counters.
    bind(TOKENS.creditLedger)
      .toResolvedValue((db: PostgresDatabase) => new PostgresCreditLedger(db), [POSTGRES])
      .inSingletonScope();
    bind(ISSUED_KEYS)
      .toResolvedValue((db: PostgresDatabase, clock: Clock) => new PostgresApiKeyRegistry(db, clock), [POSTGRES, TOKENS.clock])
      .inSingletonScope();
    bindIssuedKeys(bind, ISSUED_KEYS);
    // Through the pool, where every write and transaction waits for a connection: the pipelined
    // read connection answered while the pool was stuck, and not while one table was locked.
    bind(TOKENS.storeProbes).toResolvedValue(
      (db: PostgresDatabase, redis: RedisClient) => [{ store: 'postgres', ping: () => db.query('SELECT 1') }, redisProbe(redis)],
      [POSTGRES, REDIS],
    );
  });
