/**
 * `petstore-service/postgres`: the PostgreSQL store's record repositories and its migrations,
 * over any `PostgresDatabase`: what a store on another engine that speaks PostgreSQL's SQL
 * (PGlite, a pool of your own) builds on (docs/embedding.md, "Writing your own store").
 * Importing it loads no database client: the interface is types only, and the server's own
 * postgres.js database (PETSTORE_STORE=postgres) stays behind `petstore-service/server`.
 */
export type { CallOptions, Deadline, PostgresDatabase, SqlRows, SqlSession, SqlValue } from './adapters/postgres/postgres-database.js';
export { PostgresPetRepository } from './adapters/postgres/postgres-pet-repository.js';
export { PostgresOrderRepository } from './adapters/postgres/postgres-order-repository.js';
export { PostgresIdempotencyStore } from './adapters/postgres/postgres-idempotency-store.js';
export { PostgresApiKeyRegistry } from './adapters/postgres/postgres-api-key-registry.js';
export { PostgresCreditLedger } from './adapters/postgres/postgres-credit-ledger.js';
export { migrate, SchemaTooNewError, type AppliedMigration, type MigrationReport } from './adapters/postgres/migrate.js';
export { migrationsFolder, readMigrations, type Migration, type Rollout } from './adapters/postgres/migration-files.js';
