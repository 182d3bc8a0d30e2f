import pg from 'pg';
import { StoreUnavailableError } from '../../domain/errors.js';

export type PostgresPool = pg.Pool;
export type PostgresClient = pg.PoolClient;

export interface PostgresPoolOptions {
  readonly url: string;
  /** Connections this instance keeps (PETSTORE_PG_POOL). */
  readonly max: number;
  /** A connection or a query that takes longer is an unavailable store: a 503 rather than a wait. */
  readonly timeoutMs?: number;
  /** Tests: each fixture in a schema of its own. */
  readonly searchPath?: string;
  readonly onError?: (error: Error) => void;
}

/** Fails a request within 1 s when PostgreSQL stops answering, as the interface's 503 promises. */
export const POSTGRES_TIMEOUT_MS = 900;

/** A pool that never throws on an idle connection's error (PostgreSQL restarted): the next query reconnects. */
export function createPostgresPool({ url, max, timeoutMs = POSTGRES_TIMEOUT_MS, searchPath, onError }: PostgresPoolOptions): PostgresPool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    idleTimeoutMillis: 30_000,
    ...(searchPath === undefined ? {} : { options: `-c search_path=${searchPath}` }),
  });
  pool.on('error', (error) => onError?.(error));
  return pool;
}

/**
 * SQLSTATE classes and codes by which a reachable PostgreSQL says it cannot serve now: connection
 * exceptions (08), insufficient resources (53), shutdown or restart (57P01..57P03), a cancelled
 * or timed-out statement (57014), a failover's read-only standby (25006).
 */
const UNAVAILABLE_STATE = /^(08|53|57P0[1-3]|57014|25006)/;

/** A connection that failed: refused, reset, unreachable, or pg's own timeouts and terminations. */
const CONNECTION_FAILURE = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)$/;
const PG_CONNECTION_MESSAGE = /timeout exceeded when trying to connect|Query read timeout|Connection terminated|connection error|Client was closed|not queryable/i;

const isUnavailability = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_STATE.test(code);
  return (typeof code === 'string' && CONNECTION_FAILURE.test(code)) || PG_CONNECTION_MESSAGE.test(error.message);
};

/** Runs a call on the pool, turning unavailability into the domain's StoreUnavailableError; any other error (a bug) stays as it is. */
export async function fromPostgres<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof StoreUnavailableError || !isUnavailability(error)) throw error;
    throw new StoreUnavailableError('PostgreSQL', { cause: error });
  }
}

/** One transaction on one connection: committed when `work` resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: PostgresPool, work: (client: PostgresClient) => Promise<T>): Promise<T> {
  return fromPostgres(async () => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        // The connection is gone or stuck: destroy it rather than hand it to the next request.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      client.release(broken);
    }
  });
}

/**
 * A pool that has answered once: rejects with StoreUnavailableError naming `described` (the
 * URL without its password, and where it was configured) when PostgreSQL cannot be reached.
 */
export async function openPostgres(options: PostgresPoolOptions, described: string): Promise<PostgresPool> {
  const pool = createPostgresPool(options);
  try {
    await pool.query('SELECT 1');
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new StoreUnavailableError(`PostgreSQL at ${described}`, { cause: error });
  }
}
