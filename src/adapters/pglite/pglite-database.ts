import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite, PGliteOptions, Results, Transaction } from '@electric-sql/pglite';
import { StoreUnavailableError } from '../../index.js';
import type { CallOptions, Deadline, PostgresDatabase, SqlRows, SqlSession, SqlValue } from '../../postgres.js';
import { lockDataDir } from './data-dir-lock.js';

// PGlite (PostgreSQL compiled to WebAssembly, in this process) as a PostgresDatabase: the
// PostgreSQL store's own statements, repositories and migrations on a database that needs no
// server, kept in a directory. Written as a store outside this package would be: it imports the
// package's entry points only (`petstore-service`, `petstore-service/postgres`), which
// .dependency-cruiser.cjs holds this folder to.
//
// `@electric-sql/pglite` is imported when a database is opened, not with this module: the
// server entry point loads it only for PETSTORE_STORE=pglite.

/** As the PostgreSQL store's: a request answers within a second. */
export const PGLITE_TIMEOUT_MS = 900;

export interface PgliteDatabaseOptions {
  /**
   * The store's directory (PETSTORE_DATA_DIR), created if missing: PGlite's files in `pglite/`,
   * beside the lock that keeps a second process off them. Undefined: in memory, gone at `end`.
   */
  readonly dataDir?: string;
  /** How long a call may wait for its turn before it is refused with StoreUnavailableError, having stored nothing. */
  readonly timeoutMs?: number;
}

/**
 * Rows as postgres.js gives them to the repositories: bigint as text (ids up to 2^53 - 1 stay
 * exact, and no BigInt reaches them), timestamptz as a Date, jsonb parsed.
 */
const PARSERS = { 20: (text: string) => text };

const rowsOf = <Row>(result: Results<Row>): SqlRows<Row> => ({
  rows: result.rows,
  // As postgres.js counts: rows returned or, for a statement without RETURNING, rows affected.
  rowCount: result.rows.length > 0 ? result.rows.length : (result.affectedRows ?? 0),
});

const sessionOf = (tx: Transaction): SqlSession => ({
  query: async <Row>(text: string, values: readonly SqlValue[] = []) => rowsOf(await tx.query<Row>(text, [...values])),
  script: async (text) => {
    await tx.exec(text);
  },
});

class PgliteTimeoutError extends Error {
  readonly code = 'PETSTORE_PGLITE_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`PGlite was busy for ${timeoutMs} ms`);
  }
}

/**
 * Opens (and on first use creates) the database. Calls take turns, one at a time, as PGlite is
 * one connection: a transaction holds the turn until it ends. A call whose deadline passes while
 * it waits for its turn is refused with StoreUnavailableError and never runs; a call that has
 * started runs to its end, as nothing can cancel a statement inside this process's own database,
 * and a transaction's statements started after its deadline roll it back. So a 503 here always
 * means nothing was stored, and only the queue, never an unreachable server, makes one.
 */
export async function openPgliteDatabase({ dataDir, timeoutMs = PGLITE_TIMEOUT_MS }: PgliteDatabaseOptions = {}): Promise<PostgresDatabase> {
  const { PGlite } = await import('@electric-sql/pglite').catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error('PETSTORE_STORE=pglite needs @electric-sql/pglite, which is not installed: npm install @electric-sql/pglite', { cause: error });
  });
  let unlock = (): void => undefined;
  let pgliteDir: string | undefined;
  if (dataDir !== undefined) {
    mkdirSync(dataDir, { recursive: true });
    unlock = lockDataDir(dataDir);
    pgliteDir = join(dataDir, 'pglite');
  }
  let pglite: PGlite;
  try {
    // PGlite's defaults, fsync off (`-F`) among them: `startParams` without it does turn fsync on,
    // but its Node filesystem (Emscripten's NODEFS) has no fsync to call, so no commit is flushed
    // either way (docs/persistence-and-upgrades.md).
    const options: PGliteOptions = { parsers: PARSERS, ...(pgliteDir === undefined ? {} : { dataDir: pgliteDir }) };
    pglite = await PGlite.create(options);
  } catch (error) {
    unlock();
    throw new StoreUnavailableError(`PGlite at ${dataDir ?? 'memory'}`, { cause: error });
  }

  let turn: Promise<unknown> = Promise.resolve();
  let closed = false;
  let closing: Promise<void> | undefined;
  /** `run` at this call's turn, unless its deadline passed while it waited. */
  const inTurn = <T>(run: () => Promise<T>, deadline: Deadline): Promise<T> => {
    const result = turn.then(() => {
      if (closed) throw new StoreUnavailableError('PGlite', { cause: new Error('the database was closed') });
      if (performance.now() >= deadline.at) throw new StoreUnavailableError('PGlite', { cause: new PgliteTimeoutError(timeoutMs) });
      return run();
    });
    turn = result.catch(() => undefined);
    return result;
  };
  const deadline = (): Deadline => ({ at: performance.now() + timeoutMs });
  const statement = <Row>(text: string, values: readonly SqlValue[], given: Deadline | undefined): Promise<SqlRows<Row>> =>
    inTurn(async () => rowsOf(await pglite.query<Row>(text, [...values])), given ?? deadline());
  return {
    read: (text, values = [], { deadline: given }: CallOptions = {}) => statement(text, values, given),
    query: (text, values = [], { deadline: given }: CallOptions = {}) => statement(text, values, given),
    transaction: <T>(work: (session: SqlSession) => Promise<T>, { deadline: given, timeoutMs: own }: CallOptions & { readonly timeoutMs?: number } = {}) => {
      const until = own === undefined ? (given ?? deadline()) : { at: performance.now() + own };
      return inTurn(
        () =>
          pglite.transaction(async (tx) => {
            const session = sessionOf(tx);
            // A statement past the deadline throws before it runs: the transaction rolls back.
            const timed: SqlSession = {
              query: async (text, values) => {
                if (performance.now() >= until.at) throw new StoreUnavailableError('PGlite', { cause: new PgliteTimeoutError(own ?? timeoutMs) });
                return session.query(text, values);
              },
              script: (text) => session.script(text),
            };
            return work(timed);
          }),
        until,
      );
    },
    deadline,
    // A turn of its own, after the calls made before it (closing flushes what they wrote); those made after are refused.
    end: () => {
      if (closing === undefined) {
        closing = turn.then(async () => {
          closed = true;
          try {
            await pglite.close();
          } finally {
            unlock();
          }
        });
        turn = closing.catch(() => undefined);
      }
      return closing;
    },
  };
}
