import type { RequestHandlerDependencies } from '../adapters/http/request-handler.js';
import { loadConfig, type StoreKind } from './config/config.js';
import { composePetStore, type PetStoreAppOptions } from './pet-store-app.js';
import { ConfigurationError } from './start-pet-store.js';

/** What an embedding app chooses; everything else is configured as the server's defaults (docs/configuration.md). */
export interface PetStoreSetup {
  /** Where the records live; default `memory`. */
  readonly store?: StoreKind;
  /** API keys as PETSTORE_API_KEYS entries: `KEY:PLAN[:ROLE]` or `KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE]`. */
  readonly apiKeys?: readonly string[];
  /** `redis` and `postgres`: the Redis of the records or of the counters. Default `redis://127.0.0.1:6379`. */
  readonly redisUrl?: string;
  readonly redisPrefix?: string;
  /** `postgres`: the database of the records. Default `postgres://127.0.0.1:5432/petstore`. */
  readonly databaseUrl?: string;
  /** Any other variable of the configuration table (docs/configuration.md), e.g. `{ PETSTORE_ANONYMOUS_PER_MINUTE: '120' }`. */
  readonly environ?: Readonly<Record<string, string>>;
}

export interface PetStore {
  /** What createRequestHandler and createHttpServer take: the use cases, the admission and GET /rate_limit's reads, over the chosen stores. */
  readonly dependencies: RequestHandlerDependencies;
  /** Closes the store connections (Redis, PostgreSQL pool). */
  close(): Promise<void>;
}

/**
 * The dependencies of the handler, composed as the server composes them: one call where an
 * embedder would otherwise wire stores, key registry, quota store and admission by hand.
 * Throws ConfigurationError naming every mistake, or StoreUnavailableError when a store cannot be reached.
 */
export async function createPetStore(setup: PetStoreSetup = {}, options: Pick<PetStoreAppOptions, 'clock' | 'logger'> = {}): Promise<PetStore> {
  const environ: Record<string, string> = { ...setup.environ, PETSTORE_STORE: setup.store ?? 'memory' };
  if (setup.apiKeys !== undefined) environ['PETSTORE_API_KEYS'] = setup.apiKeys.join(',');
  if (setup.redisUrl !== undefined) environ['REDIS_URL'] = setup.redisUrl;
  if (setup.redisPrefix !== undefined) environ['PETSTORE_REDIS_PREFIX'] = setup.redisPrefix;
  if (setup.databaseUrl !== undefined) environ['DATABASE_URL'] = setup.databaseUrl;
  const config = loadConfig(environ);
  if (!config.ok) throw new ConfigurationError(config.error);
  const app = composePetStore(config.value, options);
  try {
    return { dependencies: await app.handlerDependencies(), close: () => app.close() };
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}
