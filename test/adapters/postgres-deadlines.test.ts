import { describe, expect, it } from 'vitest';
import { createPostgresDatabase } from '../../src/adapters/postgres/postgres-database.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { useTestDatabase } from '../support/test-postgres.js';

const database = useTestDatabase();

describe('PostgresDatabase deadlines', () => {
  it('a statement still waiting for a pool connection at its deadline is taken off the queue, and that is an unavailability (503), not a bug (500)', async () => {
    const db = createPostgresDatabase({ url: database.url, max: 1, timeoutMs: 400 });
    try {
      // The one pool connection, held past the other call's deadline by a transaction of its own time.
      const holder = db.transaction((session) => session.query('SELECT pg_sleep(1)'), { timeoutMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const queued = await db.query('SELECT 1').catch((error: unknown) => error);
      expect(queued).toBeInstanceOf(StoreUnavailableError);
      await holder;
    } finally {
      await db.end();
    }
  });
});
