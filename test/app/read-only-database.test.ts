import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureLine } from '../../src/app/cli/store-failure.js';
import { runKeysCommand } from '../../src/app/cli/keys-command.js';
import { runMigrateCommand } from '../../src/app/cli/migrate-command.js';
import { startPetStore } from '../../src/app/start-pet-store.js';
import { createTestDatabase, runPsql, type TestDatabase } from '../support/test-postgres.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

/** A database every new session of which is read-only, as a failover's standby or a maintenance switch leaves it. */
let database: TestDatabase;
let redis: TestRedis;

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), acquireTestRedis()]);
  await runPsql(database.url, `ALTER DATABASE "${database.name}" SET default_transaction_read_only = on`);
});

afterAll(async () => {
  await redis?.cleanup();
  await database?.drop();
});

const READ_ONLY = /^PostgreSQL is unavailable \(cannot execute CREATE TABLE in a read-only transaction\)$/;

describe('a read-only database: every entry point says why in one line, exit 1', () => {
  const environ = () => ({ PETSTORE_STORE: 'postgres', DATABASE_URL: database.url, REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.prefix, PETSTORE_LOG_LEVEL: 'silent' });
  const capture = () => {
    const lines: string[] = [];
    return { lines, output: { out: () => undefined, err: (line: string) => lines.push(line) } };
  };

  it('petstore migrate', async () => {
    const { lines, output } = capture();
    expect(await runMigrateCommand([], environ(), output)).toBe(1);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^petstore migrate: ${READ_ONLY.source.slice(1)}`))]);
  });

  it('petstore keys list', async () => {
    const { lines, output } = capture();
    expect(await runKeysCommand(['list'], environ(), output)).toBe(1);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^petstore keys: ${READ_ONLY.source.slice(1)}`))]);
  });

  it('the server (the line petstore prints before exit 1)', async () => {
    const error = await startPetStore({ ...environ(), PETSTORE_ENV: 'test', HOST: '127.0.0.1', PORT: '0' }).then(
      async (store) => {
        await store.close(0, 0);
        return undefined;
      },
      (failure: unknown) => failure,
    );
    expect(failureLine(error)).toMatch(READ_ONLY);
  });
});
