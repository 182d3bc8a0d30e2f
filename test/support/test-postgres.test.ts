import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DEFAULT_BASE_URL, runPsql, useTestDatabase } from './test-postgres.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js';

const databaseExists = async (name: string): Promise<boolean> => {
  const base = process.env['DATABASE_URL'] || DEFAULT_BASE_URL;
  const url = new URL(base);
  url.pathname = '/postgres';
  return (await runPsql(url.href, `SELECT count(*) FROM pg_database WHERE datname = '${name}'`)) === '1';
};

/** Runs `fn` with DATABASE_URL set to `value`, then restores it. */
const withDatabaseUrl = async <T>(value: string, fn: () => Promise<T>): Promise<T> => {
  const before = process.env['DATABASE_URL'];
  process.env['DATABASE_URL'] = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env['DATABASE_URL'];
    else process.env['DATABASE_URL'] = before;
  }
};

describe('the test database', () => {
  const file = useTestDatabase();

  it('useTestDatabase gives the file a database of its own, read inside its tests', async () => {
    expect(file.name).toMatch(/^petstore_test_[0-9a-f]+$/);
    expect(file.url.endsWith(`/${file.name}`)).toBe(true);
    expect(await runPsql(file.url, 'SELECT current_database()')).toBe(file.name);
  });

  it('is created, answers SELECT 1, and is gone from pg_database once dropped', async () => {
    const database = await createTestDatabase();
    try {
      expect(database.name).toMatch(/^petstore_test_[0-9a-f]+$/);
      expect(database.url).toMatch(new RegExp(`^postgres(ql)?://[^/]*@[^/]+:\\d+/${database.name}$`));
      expect(await databaseExists(database.name)).toBe(true);
      expect(await runPsql(database.url, 'SELECT 1')).toBe('1');
    } finally {
      await database.drop();
    }
    expect(await databaseExists(database.name)).toBe(false);
    // A second drop is harmless.
    await database.drop();
  });

  it('drops a database that still has open connections', async () => {
    const database = await createTestDatabase();
    const session = runPsql(database.url, 'SELECT pg_sleep(30)').catch((error: unknown) => error);
    // Wait until the session is connected, then drop under it.
    for (let i = 0; i < 100; i++) {
      if ((await runPsql(database.url, `SELECT count(*) FROM pg_stat_activity WHERE datname = '${database.name}' AND query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()`)) === '1') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await database.drop();
    expect(await session).toBeInstanceOf(Error);
    expect(await databaseExists(database.name)).toBe(false);
  });

  it('gives two calls distinct databases', async () => {
    const [one, two] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(one.name).not.toBe(two.name);
      expect(one.url).not.toBe(two.url);
    } finally {
      await Promise.all([one.drop(), two.drop()]);
    }
  });

  it('fails with how to start the server when none answers', async () => {
    await withDatabaseUrl('postgres://postgres@127.0.0.1:1/postgres', async () => {
      await expect(createTestDatabase()).rejects.toThrow(/not reachable at 127\.0\.0\.1:1[\s\S]*pg_ctlcluster --skip-systemctl-redirect 15 main start/);
    });
  });
});

describe('the throwaway PostgreSQL', () => {
  let server: ThrowawayPostgres;
  beforeAll(async () => {
    server = await startThrowawayPostgres();
  });
  afterAll(async () => {
    await server?.destroy();
  });

  it('starts on its own port and answers', async () => {
    expect(server.port).not.toBe(5432);
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    expect(await runPsql(server.url, 'SELECT 1')).toBe('1');
    expect(await runPsql(server.url, 'SHOW fsync')).toBe('on');
  });

  it('hosts test databases when DATABASE_URL names it', async () => {
    const database = await withDatabaseUrl(server.url, createTestDatabase);
    expect(database.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/${database.name}`);
    expect(await runPsql(database.url, 'SELECT 1')).toBe('1');
    await database.drop();
    expect(await runPsql(server.url, `SELECT count(*) FROM pg_database WHERE datname = '${database.name}'`)).toBe('0');
  });

  it('refuses connections after stopImmediate, and keeps its committed data across start', async () => {
    await runPsql(server.url, 'CREATE TABLE survivors (id int PRIMARY KEY, name text NOT NULL)');
    await runPsql(server.url, "INSERT INTO survivors VALUES (1, 'rex')");
    await server.stopImmediate();
    await expect(runPsql(server.url, 'SELECT 1')).rejects.toThrow(/Connection refused|could not connect/);
    await server.start();
    expect(await runPsql(server.url, 'SELECT id, name FROM survivors')).toBe('1|rex');
  });

  it('destroy stops it and removes its folder', async () => {
    const other = await startThrowawayPostgres();
    expect(existsSync(other.dir)).toBe(true);
    expect(await runPsql(other.url, 'SELECT 1')).toBe('1');
    await other.destroy();
    expect(existsSync(other.dir)).toBe(false);
    await expect(runPsql(other.url, 'SELECT 1')).rejects.toThrow(/Connection refused|could not connect/);
    // A second destroy is harmless.
    await other.destroy();
  });
});
