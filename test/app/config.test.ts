import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { apiKeyEntry, loadConfig, type Environ } from '../../src/app/config/config.js';
import { enterprisePlan, STANDARD_PLANS } from '../../src/domain/quota/plan.js';

const problems = (environ: Environ): readonly string[] => {
  const loaded = loadConfig(environ);
  return loaded.ok ? [] : loaded.error;
};

describe('proxy and CORS configuration', () => {
  it('trusts no proxy and leaves CORS off by default', () => {
    const loaded = loadConfig({});
    expect(loaded.ok && loaded.value.trustProxy).toEqual({ kind: 'none' });
    expect(loaded.ok && loaded.value.corsOrigins).toBeUndefined();
  });

  it('reads a hop count or CIDRs, and * or a list of origins', () => {
    const hops = loadConfig({ PETSTORE_TRUST_PROXY: '1', PETSTORE_CORS_ORIGINS: '*' });
    expect(hops.ok && [hops.value.trustProxy, hops.value.corsOrigins]).toEqual([{ kind: 'hops', hops: 1 }, '*']);
    const cidrs = loadConfig({ PETSTORE_TRUST_PROXY: '10.0.0.0/8,::1', PETSTORE_CORS_ORIGINS: 'https://a.example, http://localhost:3000' });
    expect(cidrs.ok && [cidrs.value.trustProxy, cidrs.value.corsOrigins]).toEqual([
      { kind: 'cidrs', cidrs: ['10.0.0.0/8', '::1/128'] },
      ['https://a.example', 'http://localhost:3000'],
    ]);
  });

  it('reports each bad value in one line naming the variable, alongside other mistakes', () => {
    expect(problems({ PORT: 'eighty', PETSTORE_TRUST_PROXY: '10.0.0.0/33', PETSTORE_CORS_ORIGINS: 'https://a.example/app' })).toEqual([
      'PORT="eighty": must be a whole number from 0 to 65535',
      'PETSTORE_TRUST_PROXY="10.0.0.0/33": the IPv4 range "10.0.0.0/33" needs a prefix length from 0 to 32',
      'PETSTORE_CORS_ORIGINS="https://a.example/app": write "https://a.example/app" as the origin browsers send: https://a.example',
    ]);
    expect(problems({ PETSTORE_TRUST_PROXY: 'yes', PETSTORE_CORS_ORIGINS: 'a.example' })).toEqual([
      'PETSTORE_TRUST_PROXY="yes": "yes" is not an IP address or CIDR; expected a hop count, or IP addresses and CIDRs such as 10.0.0.0/8, ::1/128',
      'PETSTORE_CORS_ORIGINS="a.example": "a.example" is not an origin such as https://app.example.com (scheme://host[:port], no path)',
    ]);
  });
});

describe('API keys and their roles', () => {
  const keysOf = (apiKeys: string) => {
    const loaded = loadConfig({ PETSTORE_API_KEYS: apiKeys });
    return loaded.ok ? loaded.value.apiKeys.map(({ key, plan, role }) => [key, plan, role]) : loaded.error;
  };

  it('makes a key a customer unless its last field says staff; customer may be written too', () => {
    expect(keysOf('cust-key-1:pro, staff-key-1:pro:staff, cust-key-2:business:customer')).toEqual([
      ['cust-key-1', STANDARD_PLANS.pro, 'customer'],
      ['staff-key-1', STANDARD_PLANS.pro, 'staff'],
      ['cust-key-2', STANDARD_PLANS.business, 'customer'],
    ]);
  });

  it('reads the role of an enterprise key after its limits', () => {
    expect(keysOf('ent-key-01:enterprise:100:1000:staff,ent-key-02:enterprise:100:1000')).toEqual([
      ['ent-key-01', enterprisePlan(100, 1_000), 'staff'],
      ['ent-key-02', enterprisePlan(100, 1_000), 'customer'],
    ]);
  });

  it('refuses an enterprise limit the quota counters cannot hold (above 2^32-1) in one line, and accepts the largest', () => {
    expect(problems({ PETSTORE_API_KEYS: 'big-key-1:enterprise:4294967296:5000000000' })).toEqual([
      'PETSTORE_API_KEYS: entry 1: enterprise limits must be at most 4294967295, the most a quota counter holds',
    ]);
    expect(keysOf('big-key-1:enterprise:4294967295:4294967295')).toEqual([['big-key-1', enterprisePlan(4_294_967_295, 4_294_967_295), 'customer']]);
  });

  it('refuses an unknown role or a field too many, in a line that never echoes the entry', () => {
    const secret = 'sEcReT-key-42';
    expect(problems({ PETSTORE_API_KEYS: `ok-key-123:free,${secret}:pro:admin` })).toEqual([
      'PETSTORE_API_KEYS: entry 2: ROLE, the last field, must be customer or staff',
    ]);
    expect(problems({ PETSTORE_API_KEYS: `${secret}:enterprise:100:1000:Staff` })).toEqual([
      'PETSTORE_API_KEYS: entry 1: ROLE, the last field, must be customer or staff',
    ]);
    expect(problems({ PETSTORE_API_KEYS: `${secret}:pro:staff:staff` })).toEqual([
      'PETSTORE_API_KEYS: entry 1: expected KEY:PLAN[:ROLE] with PLAN one of free, pro, business, or KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE]',
    ]);
    expect(problems({ PETSTORE_API_KEYS: `${secret}:enterprise:100:staff` })).toEqual([
      'PETSTORE_API_KEYS: entry 1: an enterprise key is KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE] with two positive whole numbers',
    ]);
    for (const entry of [`${secret}:pro:${secret}`, `${secret}:gold:staff`]) {
      const [line = ''] = problems({ PETSTORE_API_KEYS: entry });
      expect(line).toMatch(/^PETSTORE_API_KEYS: entry 1: /);
      expect(line).not.toContain(secret);
    }
  });
});

describe('operations configuration', () => {
  it('logs at info, with the access log on only in staging and production, no admin listener and a 10 s grace by default', () => {
    const dev = loadConfig({});
    expect(dev.ok && [dev.value.logLevel, dev.value.accessLog, dev.value.adminPort, dev.value.adminHost, dev.value.shutdownGraceMs]).toEqual([
      'info',
      false,
      undefined,
      '127.0.0.1',
      10_000,
    ]);
    const prod = loadConfig({ PETSTORE_ENV: 'production', PETSTORE_API_KEYS: 'prod-key-123:pro' });
    expect(prod.ok && prod.value.accessLog).toBe(true);
    const set = loadConfig({ PETSTORE_LOG_LEVEL: 'warn', PETSTORE_ACCESS_LOG: 'on', PETSTORE_ADMIN_PORT: '0', PETSTORE_ADMIN_HOST: '0.0.0.0', PETSTORE_SHUTDOWN_GRACE_MS: '2500' });
    expect(set.ok && [set.value.logLevel, set.value.accessLog, set.value.adminPort, set.value.adminHost, set.value.shutdownGraceMs]).toEqual(['warn', true, 0, '0.0.0.0', 2_500]);
  });

  it('reports each bad value in one line', () => {
    expect(problems({ PETSTORE_LOG_LEVEL: 'loud', PETSTORE_ACCESS_LOG: 'yes', PETSTORE_ADMIN_PORT: '70000', PETSTORE_SHUTDOWN_GRACE_MS: '-1' })).toEqual([
      'PETSTORE_LOG_LEVEL="loud": must be one of fatal, error, warn, info, debug, trace, silent',
      'PETSTORE_ACCESS_LOG="yes": must be on or off',
      'PETSTORE_ADMIN_PORT="70000": must be a whole number from 0 to 65535',
      'PETSTORE_SHUTDOWN_GRACE_MS="-1": must be a whole number from 0 to 600000',
    ]);
  });
});

describe('workers', () => {
  const workersOf = (environ: Environ): number | readonly string[] => {
    const loaded = loadConfig(environ);
    return loaded.ok ? loaded.value.workers : loaded.error;
  };

  it('runs one process by default, a number of them, or one per core the process may use with auto', () => {
    expect(workersOf({})).toBe(1);
    expect(workersOf({ PETSTORE_STORE: 'redis', PETSTORE_WORKERS: '3' })).toBe(3);
    expect(workersOf({ PETSTORE_STORE: 'postgres', PETSTORE_WORKERS: 'auto' })).toBe(availableParallelism());
  });

  it('refuses a count that is not auto or 1 to 256, and more than one worker on the memory store, saying what to set', () => {
    for (const raw of ['0', '257', '2.5', 'all', '-1']) {
      expect(problems({ PETSTORE_STORE: 'redis', PETSTORE_WORKERS: raw })).toEqual([`PETSTORE_WORKERS=${JSON.stringify(raw)}: must be auto or a whole number from 1 to 256`]);
    }
    expect(problems({ PETSTORE_WORKERS: '2' })).toEqual([
      "PETSTORE_WORKERS=2 needs a shared store: each worker's memory store would keep its own quotas and records. Set PETSTORE_STORE=redis or postgres, or PETSTORE_WORKERS=1",
    ]);
    expect(problems({ PETSTORE_WORKERS: '1' })).toEqual([]);
  });

  it('writes each key as the PETSTORE_API_KEYS entry that reads back the same key, plan and role (how a supervisor hands demo keys to its workers)', () => {
    const keys = [
      { key: 'entry-free-123', plan: STANDARD_PLANS.free, role: 'customer' as const },
      { key: 'entry-staff-123', plan: STANDARD_PLANS.pro, role: 'staff' as const },
      { key: 'entry-big-12345', plan: enterprisePlan(5_000, 1_000_000), role: 'staff' as const },
    ];
    const loaded = loadConfig({ PETSTORE_API_KEYS: keys.map(apiKeyEntry).join(',') });
    expect(loaded.ok && loaded.value.apiKeys).toEqual(keys);
  });
});
