import { describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_URL, loadConfig, withoutPassword } from '../../src/app/config/config.js';

const problems = (environ: Record<string, string>): readonly string[] => {
  const loaded = loadConfig(environ);
  return loaded.ok ? [] : loaded.error;
};

describe('PostgreSQL configuration', () => {
  it('reads PETSTORE_STORE=postgres, DATABASE_URL and PETSTORE_PG_POOL, with the documented defaults', () => {
    const defaults = loadConfig({ PETSTORE_STORE: 'postgres' });
    expect(defaults.ok && [defaults.value.store, defaults.value.databaseUrl, defaults.value.pgPoolSize]).toEqual([
      'postgres',
      DEFAULT_DATABASE_URL,
      10,
    ]);
    const given = loadConfig({ PETSTORE_STORE: 'postgres', DATABASE_URL: 'postgresql://shop:pw@db.internal:6432/shop', PETSTORE_PG_POOL: '25' });
    expect(given.ok && [given.value.databaseUrl, given.value.pgPoolSize]).toEqual(['postgresql://shop:pw@db.internal:6432/shop', 25]);
  });

  it('refuses a DATABASE_URL that is not a postgres URL naming a host and a database, echoing it without its password', () => {
    expect(problems({ DATABASE_URL: 'mysql://shop:hunter2@db/shop' })).toEqual([
      'DATABASE_URL="mysql://shop:***@db/shop": must start with postgres:// or postgresql://',
    ]);
    expect(problems({ DATABASE_URL: 'postgres://shop:hunter2@db.internal' })).toEqual([
      'DATABASE_URL="postgres://shop:***@db.internal": must name a host and a database: postgres://USER@HOST:5432/DATABASE',
    ]);
    expect(problems({ PETSTORE_PG_POOL: '0' })).toEqual(['PETSTORE_PG_POOL="0": must be a whole number from 1 to 1000']);
  });

  it('leaves the PostgreSQL deadline to the store unless PETSTORE_PG_TIMEOUT_MS sets one from 100 to 60000 ms', () => {
    const timeoutOf = (raw: string | undefined) => {
      const loaded = loadConfig(raw === undefined ? {} : { PETSTORE_PG_TIMEOUT_MS: raw });
      return loaded.ok ? loaded.value.pgTimeoutMs : loaded.error;
    };
    expect(timeoutOf(undefined)).toBeUndefined();
    expect(timeoutOf('5000')).toBe(5_000);
    expect(timeoutOf('99')).toEqual(['PETSTORE_PG_TIMEOUT_MS="99": must be a whole number from 100 to 60000']);
  });

  it('never prints a password in a URL, whatever the scheme', () => {
    expect(withoutPassword('postgres://u:p%40ss@h:5432/d')).toBe('postgres://u:***@h:5432/d');
    expect(withoutPassword('redis://:secret@h:6379')).toBe('redis://:***@h:6379');
    expect(withoutPassword('postgres://u@h/d')).toBe('postgres://u@h/d');
  });
});
