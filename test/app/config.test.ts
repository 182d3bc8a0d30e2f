import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { apiKeyEntry, loadConfig, type Environ, type PetStoreConfig } from '../../src/app/config/config.js';
import { createPetStore } from '../../src/app/create-pet-store.js';
import { MAX_BAN_STRIKES } from '../../src/domain/quota/ban-policy.js';
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

describe('the pglite store', () => {
  it('keeps its records in PETSTORE_DATA_DIR, which it requires, and runs as one process only', () => {
    const loaded = loadConfig({ PETSTORE_STORE: 'pglite', PETSTORE_DATA_DIR: '/var/lib/petstore' });
    expect(loaded.ok && { store: loaded.value.store, dataDir: loaded.value.dataDir }).toEqual({ store: 'pglite', dataDir: '/var/lib/petstore' });
    expect(problems({ PETSTORE_STORE: 'pglite' })).toEqual([
      'PETSTORE_STORE=pglite keeps its records in a directory: set PETSTORE_DATA_DIR (or --data-dir) to one, created if missing',
    ]);
    expect(problems({ PETSTORE_STORE: 'pglite', PETSTORE_DATA_DIR: 'data', PETSTORE_WORKERS: '2' })).toEqual([
      "PETSTORE_WORKERS=2 needs a shared store: each worker's pglite store would keep its own quotas and records. Set PETSTORE_STORE=redis or postgres, or PETSTORE_WORKERS=1",
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

/** A whole-number setting: the range it accepts, the range its refusal names, and where its value lands. */
interface WholeNumberSetting {
  readonly variable: string;
  readonly min: number;
  readonly max: number;
  /** What the refusal says is accepted; default `a whole number from MIN to MAX`. */
  readonly accepted?: string;
  /** Other settings it needs to be read alone (more than one worker needs a shared store). */
  readonly beside?: Environ;
  readonly read: (config: PetStoreConfig) => number | undefined;
}

const WHOLE_NUMBER_SETTINGS: readonly WholeNumberSetting[] = [
  { variable: 'PORT', min: 0, max: 65_535, read: (config) => config.port },
  { variable: 'PETSTORE_PG_POOL', min: 1, max: 1_000, read: (config) => config.pgPoolSize },
  { variable: 'PETSTORE_PG_TIMEOUT_MS', min: 100, max: 60_000, read: (config) => config.pgTimeoutMs },
  { variable: 'PETSTORE_BAN_STRIKES', min: 1, max: MAX_BAN_STRIKES, read: (config) => config.ban.strikes },
  { variable: 'PETSTORE_BAN_WINDOW_SECONDS', min: 1, max: 86_400, read: (config) => config.ban.strikeWindowMs / 1000 },
  { variable: 'PETSTORE_BAN_SECONDS', min: 1, max: 2_592_000, read: (config) => config.ban.banMs / 1000 },
  { variable: 'PETSTORE_ANONYMOUS_PER_MINUTE', min: 1, max: 1_000_000_000, read: (config) => config.anonymousPerMinute },
  { variable: 'PETSTORE_ADMIN_PORT', min: 0, max: 65_535, read: (config) => config.adminPort },
  { variable: 'PETSTORE_SHUTDOWN_GRACE_MS', min: 0, max: 600_000, read: (config) => config.shutdownGraceMs },
  { variable: 'PETSTORE_DRAIN_SECONDS', min: 0, max: 600, read: (config) => config.drainSeconds },
  {
    variable: 'PETSTORE_WORKERS',
    min: 1,
    max: 256,
    accepted: 'auto or a whole number from 1 to 256',
    beside: { PETSTORE_STORE: 'redis' },
    read: (config) => config.workers,
  },
];

describe('every setting checked at start: a value either passes and serves, or is refused in one line naming the setting and its range', () => {
  it.each(WHOLE_NUMBER_SETTINGS)('$variable: accepts its range at both ends and nothing else', ({ variable, min, max, accepted, beside = {}, read }) => {
    for (const value of [min, max]) {
      const loaded = loadConfig({ ...beside, [variable]: String(value) });
      expect(loaded.ok && read(loaded.value), `${variable}=${value}`).toBe(value);
    }
    const refused = [String(max + 1), '-1', '-0', '+1', '1.5', '1e3', '0x10', ' 1', 'ten'];
    if (min > 0) refused.push(String(min - 1));
    for (const raw of refused) {
      expect(problems({ ...beside, [variable]: raw })).toEqual([`${variable}=${JSON.stringify(raw)}: must be ${accepted ?? `a whole number from ${min} to ${max}`}`]);
    }
  });

  it('refuses PETSTORE_BAN_STRIKES=0, which a store cannot decide (every request with a valid key was a 500)', () => {
    expect(problems({ PETSTORE_BAN_STRIKES: '0' })).toEqual([`PETSTORE_BAN_STRIKES="0": must be a whole number from 1 to ${MAX_BAN_STRIKES}`]);
  });

  it('decides requests at every accepted extreme of the quota settings: admitted, refused, struck and banned, never thrown', async () => {
    const key = 'extreme-key-1';
    const digest = createHash('sha256').update(key).digest('hex');
    const extremes = WHOLE_NUMBER_SETTINGS.filter(({ variable }) => variable.startsWith('PETSTORE_BAN_') || variable === 'PETSTORE_ANONYMOUS_PER_MINUTE');
    for (const { variable, min, max } of extremes) {
      for (const value of [min, max]) {
        const petStore = await createPetStore({ apiKeys: [`${key}:enterprise:1:1000`], environ: { PETSTORE_BAN_STRIKES: '2', [variable]: String(value) } });
        try {
          const { admission } = petStore.dependencies;
          const verdicts = new Set<string>();
          for (let i = 0; i < 5; i++) verdicts.add((await admission.admit(digest, '127.0.0.1')).decision.verdict);
          expect((await admission.admit(undefined, '127.0.0.1')).decision.verdict, `${variable}=${value}`).toBe('admitted');
          expect(verdicts.has('admitted') && verdicts.has('rate_limited'), `${variable}=${value}`).toBe(true);
        } finally {
          await petStore.close();
        }
      }
    }
  });

  it('reads PETSTORE_DEPRECATION_DATE as a calendar date or an RFC 3339 time, refusing what Date alone would take', () => {
    const deprecatedAt = (raw: string): number | readonly string[] => {
      const loaded = loadConfig({ PETSTORE_DEPRECATION_DATE: raw });
      return loaded.ok ? loaded.value.deprecatedAt.getTime() : loaded.error;
    };
    expect(deprecatedAt('2026-01-01')).toBe(Date.UTC(2026, 0, 1));
    expect(deprecatedAt('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(deprecatedAt('2026-01-01T12:00:00+02:00')).toBe(Date.UTC(2026, 0, 1, 10));
    expect(deprecatedAt('2026-01-01T12:00:00.250Z')).toBe(Date.UTC(2026, 0, 1, 12, 0, 0, 250));
    for (const raw of ['1', '2026', '2026-02-30', '2025-02-29', '2026-13-01', '2026-01-01T25:00:00Z', '2026-01-01 12:00', 'Thu, 01 Jan 2026 00:00:00 GMT']) {
      expect(deprecatedAt(raw)).toEqual([`PETSTORE_DEPRECATION_DATE=${JSON.stringify(raw)}: must be a date such as 2026-01-01, or a time such as 2026-01-01T12:00:00Z`]);
    }
  });
});
