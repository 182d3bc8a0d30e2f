import { Redis } from 'ioredis';
import postgres from 'postgres';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config/config.js';

/*
 * TLS to the stores is the URL's (docs/configuration.md, "TLS to Redis and PostgreSQL"): the
 * service hands REDIS_URL to ioredis and DATABASE_URL to postgres.js as given, and each client
 * reads TLS from it. Nothing connects here: the clients' options are read as they parsed them.
 */

describe('TLS to the stores, from their URLs', () => {
  it('reads rediss:// as TLS to Redis (ioredis: tls set), redis:// as plain', async () => {
    const config = loadConfig({ PETSTORE_STORE: 'redis', REDIS_URL: 'rediss://:secret@redis.example:6380/0' });
    expect(config.ok && config.value.redisUrl).toBe('rediss://:secret@redis.example:6380/0');
    const tls = new Redis('rediss://:secret@redis.example:6380/0', { lazyConnect: true });
    const plain = new Redis('redis://redis.example:6379/0', { lazyConnect: true });
    expect(tls.options).toMatchObject({ host: 'redis.example', port: 6380, tls: true });
    expect(plain.options.tls).toBeUndefined();
    tls.disconnect();
    plain.disconnect();
  });

  it('reads sslmode from DATABASE_URL as TLS to PostgreSQL (postgres.js: ssl set)', async () => {
    for (const mode of ['require', 'verify-full', 'prefer']) {
      const url = `postgres://shop:secret@db.example:5432/shop?sslmode=${mode}`;
      const config = loadConfig({ PETSTORE_STORE: 'postgres', DATABASE_URL: url });
      expect(config.ok && config.value.databaseUrl, mode).toBe(url);
      const sql = postgres(url, { max: 1 });
      expect(sql.options.ssl, mode).toBe(mode);
      await sql.end({ timeout: 0 });
    }
    const plain = postgres('postgres://shop@db.example/shop', { max: 1 });
    expect(plain.options.ssl).toBe(false);
    await plain.end({ timeout: 0 });
  });

  it('is documented in docs/configuration.md, with the URLs tested here', () => {
    const guide = readFileSync('docs/configuration.md', 'utf8');
    expect(guide).toContain('## TLS to Redis and PostgreSQL');
    expect(guide).toContain('rediss://:secret@redis.example:6380/0');
    expect(guide).toContain('postgres://shop:secret@db.example:5432/shop?sslmode=verify-full');
  });

  it('leaves no guide saying Redis needs no backup: a restart without AOF or RDB resets day quotas and lifts bans', () => {
    const guide = readFileSync('docs/persistence-and-upgrades.md', 'utf8');
    expect(guide).not.toContain('needs no backup');
    expect(guide).toMatch(/every key's day quota starts over[^]*every ban is lifted early/);
  });
});
