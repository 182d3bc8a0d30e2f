import postgres from 'postgres';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { OutageListener } from '../store-outages.js';

/** A statement's parameter: text, a number, an array of text, or an object for a `jsonb` column (serialised by the client). */
export type SqlValue = string | number | boolean | null | object;

export interface SqlRows<Row> {
  readonly rows: Row[];
  /** Rows returned or, for a statement without RETURNING, rows affected. */
  readonly rowCount: number;
}

/** Runs statements with `$1`-style parameters, each prepared once per connection. */
export interface SqlSession {
  query<Row = Record<string, unknown>>(text: string, values?: readonly SqlValue[]): Promise<SqlRows<Row>>;
  /** Statements without parameters, `;`-separated, by the simple protocol: a migration file. */
  script(text: string): Promise<void>;
}

/**
 * When the calls of one request must be done by: made by `PostgresDatabase.deadline()` when the
 * request's first call starts and handed to its later calls, so a request of several statements
 * (a keyed POST: its claim, its transaction) gets one deadline, not one per statement.
 */
export interface Deadline {
  /** On `performance.now()`'s clock. */
  readonly at: number;
}

export interface CallOptions {
  /** Default: a deadline of its own, `timeoutMs` from now. */
  readonly deadline?: Deadline;
}

/**
 * The shop's records in PostgreSQL, reached two ways:
 *
 * - `read`: a short read (an index lookup, a keyset page), pipelined with every other request's
 *   on one connection, so concurrent requests share socket writes and reads and one backend
 *   serves them all; the HTTP bench measured this against a pool (docs/decisions.md).
 * - `query` and `transaction`: on a pool of `max` connections, for writes (each waits for its
 *   commit's disk flush, which a pipeline would serialise; concurrent commits on a pool share
 *   flushes), for statements that read a whole table and for multi-statement transactions.
 *
 * Every call fails with StoreUnavailableError by its deadline, so a PostgreSQL that stops
 * answering is a 503 rather than a wait; and a call that fails so has stored nothing when
 * PostgreSQL can still be told anything (see untilDeadline).
 */
export interface PostgresDatabase {
  read<Row = Record<string, unknown>>(text: string, values?: readonly SqlValue[], options?: CallOptions): Promise<SqlRows<Row>>;
  query<Row = Record<string, unknown>>(text: string, values?: readonly SqlValue[], options?: CallOptions): Promise<SqlRows<Row>>;
  /**
   * One transaction: committed when `work` resolves, rolled back when it throws. `timeoutMs`
   * (a migration's) replaces the request's deadline, in PostgreSQL too.
   */
  transaction<T>(work: (session: SqlSession) => Promise<T>, options?: CallOptions & { readonly timeoutMs?: number }): Promise<T>;
  /** A deadline `timeoutMs` from now, for the calls of one request. */
  deadline(): Deadline;
  end(): Promise<void>;
}

export interface PostgresDatabaseOptions {
  readonly url: string;
  /** Pool connections for scans and transactions (PETSTORE_PG_POOL), beside the one pipelined connection. */
  readonly max: number;
  /** A connection or a call that takes longer is an unavailable store: a 503 rather than a wait. */
  readonly timeoutMs?: number;
  /** Tests: each fixture in a schema of its own. */
  readonly searchPath?: string;
  /** Told when calls start failing for unavailability, and at the first success after. */
  readonly outages?: OutageListener;
}

/** Fails a request within 1 s when PostgreSQL stops answering, as the interface's 503 promises. */
export const POSTGRES_TIMEOUT_MS = 900;

/**
 * SQLSTATE classes and codes by which a reachable PostgreSQL says it cannot serve now: connection
 * exceptions (08), insufficient resources (53), shutdown or restart (57P01..57P03), a cancelled
 * or timed-out statement (57014), a failover's read-only standby (25006).
 */
const UNAVAILABLE_STATE = /^(08|53|57P0[1-3]|57014|25006)/;

const QUERY_CANCELED = '57014';

/** A connection that failed: refused, reset, unreachable, or the client's own timeouts and closes. */
const CONNECTION_FAILURE =
  /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|PETSTORE_POSTGRES_TIMEOUT)$/;

const isUnavailability = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  // A statement cancelled before it was sent: the client's own 57014, not a PostgresError.
  return CONNECTION_FAILURE.test(code) || code === QUERY_CANCELED || (error instanceof postgres.PostgresError && UNAVAILABLE_STATE.test(code));
};

class PostgresTimeoutError extends Error {
  readonly code = 'PETSTORE_POSTGRES_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`PostgreSQL did not answer within ${timeoutMs} ms`);
  }
}

/** A statement (or a transaction) under way, and how to make PostgreSQL give it up. */
interface Statement<T> {
  readonly result: Promise<T>;
  cancel(): void;
}

/**
 * The share of a call's time after which its statement is cancelled in PostgreSQL (by the client,
 * and by the connection's statement_timeout): the rest is for PostgreSQL to confirm it gave up.
 */
const CANCEL_AT = 0.75;

/**
 * The statement's own outcome, by the deadline. At CANCEL_AT of the time left the statement is
 * cancelled, and PostgreSQL answers with 57014 (an unavailability: the request is a 503) or, if
 * it finished first, with its result: a 503 then means PostgreSQL gave the statement up and
 * stored nothing. Only when PostgreSQL does not even confirm that by the deadline (it stopped
 * answering, or cannot be reached) does this reject without its word, and a write it had
 * received may still complete if it answers again (a POST with an Idempotency-Key is safe
 * against that: its retry replays).
 */
function untilDeadline<T>(statement: Statement<T>, msLeft: number, timeoutMs: number): Promise<T> {
  if (msLeft <= 0) {
    statement.cancel();
    void statement.result.catch(() => undefined);
    return Promise.reject(new PostgresTimeoutError(timeoutMs));
  }
  let cancelTimer: NodeJS.Timeout | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    cancelTimer = setTimeout(() => statement.cancel(), msLeft * CANCEL_AT);
    expiryTimer = setTimeout(() => reject(new PostgresTimeoutError(timeoutMs)), msLeft);
  });
  return Promise.race([statement.result, expiry]).finally(() => {
    clearTimeout(cancelTimer);
    clearTimeout(expiryTimer);
  });
}

/**
 * Turns unavailability into the domain's StoreUnavailableError, any other error (a bug) stays as
 * it is; tells `outages` when calls start failing and when one succeeds again.
 */
const unavailabilityTranslator = (outages: OutageListener | undefined, timeoutMs: number) => {
  let failing = false;
  return async <T>(start: () => Statement<T>, deadline: Deadline): Promise<T> => {
    try {
      const result = await untilDeadline(start(), deadline.at - performance.now(), timeoutMs);
      if (failing) {
        failing = false;
        outages?.available();
      }
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailableError || !isUnavailability(error)) throw error;
      failing = true;
      outages?.unavailable(error);
      throw new StoreUnavailableError('PostgreSQL', { cause: error });
    }
  };
};

type Sql = postgres.Sql | postgres.TransactionSql;
type PendingQuery = postgres.PendingQuery<postgres.Row[]>;

const statementOf = (sql: Sql, text: string, values: readonly SqlValue[]): PendingQuery =>
  sql.unsafe(text, values as postgres.ParameterOrJSON<never>[], { prepare: true });

const rowsOf = async <Row>(query: PendingQuery): Promise<SqlRows<Row>> => {
  const rows = await query;
  return { rows: rows as unknown as Row[], rowCount: rows.count };
};

/**
 * Cancels `query` in PostgreSQL: off the client's queue if it was not sent yet, else by a
 * CancelRequest. Through the client's canceller itself, to handle its promise: `query.cancel()`
 * drops it, so a CancelRequest that cannot connect (PostgreSQL down) would reject it unhandled and
 * end the process. Without that internal (another client version) the connection's
 * statement_timeout still cancels it.
 */
const cancelQuery = (query: PendingQuery): void => {
  const internal = query as unknown as { canceller?: ((query: PendingQuery) => Promise<void>) | null };
  const canceller = internal.canceller;
  if (typeof canceller !== 'function') return;
  internal.canceller = null;
  canceller(query).catch(() => undefined);
};

/** A statement in a transaction of its own: cancelled, it stores nothing. */
const statement = <Row>(sql: Sql, text: string, values: readonly SqlValue[]): Statement<SqlRows<Row>> => {
  const query = statementOf(sql, text, values);
  return { result: rowsOf<Row>(query), cancel: () => cancelQuery(query) };
};

/**
 * `work` in a transaction on the pool. Cancelled, it runs no further statement and its running
 * one is cancelled, so it rolls back; `timeoutMs` is its own statement_timeout (a migration's).
 */
function transactionOn<T>(pool: postgres.Sql, work: (session: SqlSession) => Promise<T>, timeoutMs: number, ownTimeout: boolean): Statement<T> {
  let cancelled = false;
  let running: PendingQuery | undefined;
  const run = async <Row>(query: () => PendingQuery): Promise<SqlRows<Row>> => {
    if (cancelled) throw new PostgresTimeoutError(timeoutMs);
    const started = query();
    running = started;
    try {
      return await rowsOf<Row>(started);
    } finally {
      if (running === started) running = undefined;
    }
  };
  const result = pool.begin(async (sql) => {
    if (ownTimeout) await sql.unsafe(`SET LOCAL statement_timeout = ${Math.round(timeoutMs)}`);
    return work({
      query: (text, values = []) => run(() => statementOf(sql, text, values)),
      script: async (text) => {
        await run(() => sql.unsafe(text).simple() as unknown as PendingQuery);
      },
    });
  }) as Promise<T>;
  return {
    result,
    cancel: () => {
      cancelled = true;
      if (running !== undefined) cancelQuery(running);
    },
  };
}

/** The array types the statements bind (`$1::bigint[]`, `::integer[]`, `::text[]`, `::timestamptz[]`), by their type oids. */
const BOUND_ARRAY_TYPES = [1016, 1007, 1009, 1185];

/**
 * A PostgreSQL array literal of text, numbers or NULLs: every element quoted, `"` and `\` escaped
 * (the array input syntax), so a pet named `a","b` stays one element.
 */
export const arrayLiteral = (values: readonly (string | number | null)[]): string =>
  `{${values.map((value) => (value === null ? 'NULL' : `"${String(value).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;

/** A database whose connections open on first use and reconnect after PostgreSQL restarts. */
export function createPostgresDatabase({ url, max, timeoutMs = POSTGRES_TIMEOUT_MS, searchPath, outages }: PostgresDatabaseOptions): PostgresDatabase {
  const fromPostgres = unavailabilityTranslator(outages, timeoutMs);
  const options = {
    connect_timeout: timeoutMs / 1000,
    // Reconnect at the next statement, as soon as PostgreSQL is back: the client's default waits
    // up to 20 s after repeated failures, and meanwhile every statement would wait out its timeout.
    backoff: () => 0,
    // NOTICEs (a migration's "already exists, skipping") are not the operator's concern.
    onnotice: () => undefined,
    // The client would ask every new connection for the server's array types before its first
    // statement; under enable_seqscan=off that catalog query took 237 ms (0.6 ms with scans on),
    // and the pool reopens a connection after 30 s idle. The statements bind four array types,
    // serialised here.
    fetch_types: false,
    types: { boundArrays: { to: BOUND_ARRAY_TYPES[0]!, from: BOUND_ARRAY_TYPES, serialize: arrayLiteral, parse: (text: string) => text } },
    connection: {
      application_name: 'petstore',
      // PostgreSQL gives a statement up by itself when its request's deadline is near, even one
      // the client could not cancel (a pipelined read, a cancel that did not get through): no
      // statement outlives its request's 503 by more than the rest of that deadline.
      statement_timeout: Math.round(timeoutMs * CANCEL_AT),
      // Every statement here walks an index by design (keys, keyset pages). A prepared statement's
      // generic plan made while a table was small would otherwise scan the whole table for as long
      // as the connection lives: the order bench's PostgreSQL CPU per request went 96 → 228 µs in
      // three rounds, and stayed at 60 with this (docs/decisions.md).
      enable_seqscan: 'off',
      // PostgreSQL's default plans a prepared statement again at every execution whenever its
      // generic plan looks dearer than the custom ones: always for the batched statements, whose
      // unnest of arrays it prices at 10 rows against the custom plans' known 1. A turn's page
      // read cost the backend 272 µs, 78 with the generic plan (bench/pg-plan-cache.ts).
      plan_cache_mode: 'force_generic_plan',
      ...(searchPath === undefined ? {} : { search_path: searchPath }),
    },
  };
  const pipeline = postgres(url, { ...options, max: 1 });
  const pool = postgres(url, { ...options, max, idle_timeout: 30 });
  const deadline = (): Deadline => ({ at: performance.now() + timeoutMs });
  return {
    // Cancelled too: each pipelined read behind a blocked one would otherwise hold the one backend
    // for its own statement_timeout after its 503. A CancelRequest names a backend, not a statement:
    // sent as the read ends, it can hit the next one, a 503 its client retries.
    read: (text, values = [], { deadline: given } = {}) => fromPostgres(() => statement(pipeline, text, values), given ?? deadline()),
    query: (text, values = [], { deadline: given } = {}) => fromPostgres(() => statement(pool, text, values), given ?? deadline()),
    transaction: <T>(work: (session: SqlSession) => Promise<T>, { deadline: given, timeoutMs: own }: CallOptions & { readonly timeoutMs?: number } = {}) =>
      fromPostgres(
        () => transactionOn(pool, work, own ?? timeoutMs, own !== undefined),
        own === undefined ? (given ?? deadline()) : { at: performance.now() + own },
      ),
    deadline,
    end: async () => {
      await Promise.all([pipeline.end({ timeout: 1 }), pool.end({ timeout: 1 })]);
    },
  };
}

/**
 * A database that has answered once: rejects with StoreUnavailableError naming `described` (the
 * URL without its password, and where it was configured) when PostgreSQL cannot be reached.
 */
export async function openPostgres(options: PostgresDatabaseOptions, described: string): Promise<PostgresDatabase> {
  const database = createPostgresDatabase(options);
  try {
    await database.query('SELECT 1');
    return database;
  } catch (error) {
    await database.end().catch(() => undefined);
    // The client's own error is the cause, so the start-up line can say why (refused, no such database).
    throw new StoreUnavailableError(`PostgreSQL at ${described}`, { cause: error instanceof StoreUnavailableError ? error.cause : error });
  }
}
