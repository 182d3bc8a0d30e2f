import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { needsBeyondUnitTier } from './test-tier.js';

/** A database of its own on the test PostgreSQL server, for one test file (or one test). */
export interface TestDatabase {
  /** postgres://<user>@<host>:<port>/<name>, with the base server's credentials and query. */
  readonly url: string;
  /** `petstore_test_<random hex>`. */
  readonly name: string;
  /** Drops this database (and only it), ending its open connections. Idempotent. */
  drop(): Promise<void>;
}

/** The server the test databases are created on when DATABASE_URL is not set. */
export const DEFAULT_BASE_URL = 'postgres://postgres@127.0.0.1:5432';
/** The maintenance database the CREATE/DROP statements are run from, as createdb does. */
const MAINTENANCE_DATABASES = ['postgres', 'template1'] as const;
const PSQL_TIMEOUT_MS = 30_000;
/** psql's exit status when it could not connect (or lost the connection). */
const PSQL_CONNECTION_FAILED = 2;

const HOW_TO_START = [
  'Start the local server with: pg_ctlcluster --skip-systemctl-redirect 15 main start',
  '  (trust auth on 127.0.0.1:5432, user postgres),',
  '  or set DATABASE_URL to a reachable server, e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres',
].join('\n');

/** psql failed: its exit status and what it wrote on stderr. */
export class PsqlError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'PsqlError';
  }

  /** Whether psql could not reach (or lost) the server, as opposed to an SQL error. */
  get connectionFailed(): boolean {
    return this.exitCode === PSQL_CONNECTION_FAILED;
  }
}

/**
 * Runs `sql` with psql against `url` (no psqlrc, stop on the first error, unaligned tuples only)
 * and resolves with its output, trimmed: one row a line, columns separated by `|`. Several
 * statements in `sql` run in one transaction, so CREATE/DROP DATABASE must come alone.
 */
export const runPsql = (url: string, sql: string): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(
      'psql',
      ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql],
      {
        timeout: PSQL_TIMEOUT_MS,
        // A server that never answers must fail fast, not after the OS's connect timeout.
        env: { ...process.env, PGCONNECT_TIMEOUT: process.env['PGCONNECT_TIMEOUT'] ?? '5' },
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve(stdout.trim());
          return;
        }
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new Error('psql is not on the PATH: install the PostgreSQL client (e.g. apt-get install postgresql-client)', { cause: error }));
          return;
        }
        const exitCode = typeof error.code === 'number' ? error.code : null;
        const what = error.killed ? `timed out after ${PSQL_TIMEOUT_MS} ms` : `exited with ${exitCode ?? error.signal}`;
        reject(new PsqlError(`psql ${what} on ${redact(url)} running ${JSON.stringify(sql)}:\n${stderr.trim()}`, exitCode, stderr));
      },
    );
  });

/**
 * Creates an empty database `petstore_test_<random hex>` on the server of DATABASE_URL (its
 * host, port, user and password; its database is never used) or, without it, on
 * postgres://postgres@127.0.0.1:5432. Fails with how to start the server when it does not answer.
 */
export const createTestDatabase = async (): Promise<TestDatabase> => {
  needsBeyondUnitTier('a PostgreSQL database');
  const base = baseServer();
  const name = `petstore_test_${randomBytes(6).toString('hex')}`;
  const admin = await maintenanceUrl(base);
  await runPsql(admin, `CREATE DATABASE ${quoteIdentifier(name)}`);
  let dropped: Promise<void> | undefined;
  return {
    url: withDatabase(base, name),
    name,
    drop: () => {
      dropped ??= runPsql(admin, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`).then(() => undefined);
      return dropped;
    },
  };
};

export interface TestDatabaseFile {
  /** The file's database URL: read it inside the tests (or hooks), not when the file is collected. */
  readonly url: string;
  readonly name: string;
}

/**
 * For one test file: a test database (see createTestDatabase), created before its tests and
 * dropped after them.
 */
export const useTestDatabase = (): TestDatabaseFile => {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  const created = (): TestDatabase => {
    if (database === undefined) throw new Error('useTestDatabase: used outside the tests of its file');
    return database;
  };
  return {
    get url() {
      return created().url;
    },
    get name() {
      return created().name;
    },
  };
};

/** The base server's URL: DATABASE_URL if set (non-empty), else the local default. */
const baseServer = (): URL => {
  const fromEnv = process.env['DATABASE_URL'];
  const raw = fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_BASE_URL;
  if (!URL.canParse(raw)) throw new Error(`DATABASE_URL is not a URL: ${JSON.stringify(raw)}`);
  const url = new URL(raw);
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL must be a postgres:// URL, not ${JSON.stringify(redact(raw))}`);
  }
  return url;
};

const withDatabase = (base: URL, database: string): string => {
  const url = new URL(base.href);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.href;
};

/**
 * The first maintenance database of the server that accepts a connection, probed with `SELECT 1`.
 * An unreachable server fails here, with how to start it.
 */
const maintenanceUrl = async (base: URL): Promise<string> => {
  let lastError: unknown;
  for (const database of MAINTENANCE_DATABASES) {
    const url = withDatabase(base, database);
    try {
      await runPsql(url, 'SELECT 1');
      return url;
    } catch (error) {
      lastError = error;
      // Only a missing maintenance database is worth another try; anything else is the server's answer.
      if (!(error instanceof PsqlError && /database "[^"]+" does not exist/.test(error.stderr))) break;
    }
  }
  if (lastError instanceof PsqlError && lastError.connectionFailed) {
    const server = `${base.hostname || '127.0.0.1'}:${base.port || '5432'} as user ${decodeURIComponent(base.username) || '(default)'}`;
    throw new Error(`PostgreSQL is not reachable at ${server} for the tests:\n${lastError.stderr.trim()}\n${HOW_TO_START}`, {
      cause: lastError,
    });
  }
  throw lastError;
};

/** `name` as a double-quoted SQL identifier. */
const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** `url` without its password, for error messages. */
const redact = (url: string): string => {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.href;
};
