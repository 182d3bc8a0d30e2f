import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryCreditLedger } from '../../src/adapters/memory/memory-credit-ledger.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { keySubject, RequestAdmission } from '../../src/domain/quota/request-admission.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { DAY_MS, enterprisePlan, STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { KEYS_USAGE, parseKeysArgs, runKeysCommand, type KeysDependencies } from '../../src/app/cli/keys-command.js';
import type { PetStoreConfig } from '../../src/app/config/config.js';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { ManualClock } from '../support/manual-clock.js';
import { parseDuration } from '../../src/domain/keys/key-fields.js';

const REDIS_ENV = { PETSTORE_STORE: 'redis' };

describe('parseDuration', () => {
  it('reads a whole number and a unit s, m, h or d', () => {
    expect(parseDuration('90s', '--expires-in')).toEqual({ ok: true, value: 90_000 });
    expect(parseDuration('30m', '--expires-in')).toEqual({ ok: true, value: 1_800_000 });
    expect(parseDuration('12h', '--expires-in')).toEqual({ ok: true, value: 43_200_000 });
    expect(parseDuration('7d', '--expires-in')).toEqual({ ok: true, value: 604_800_000 });
    expect(parseDuration('90d', '--expires-in')).toEqual({ ok: true, value: 7_776_000_000 });
    expect(parseDuration('3650d', '--expires-in')).toEqual({ ok: true, value: 315_360_000_000 });
  });

  it('refuses anything else, naming the field', () => {
    for (const raw of ['', '7', 'd', '0s', '0d', '1.5h', '-1d', '7w', '7 d', '7D', '3651d', '1e3s', ' 7d']) {
      const parsed = parseDuration(raw, '--expires-in');
      expect(parsed.ok, raw).toBe(false);
      if (!parsed.ok) expect(parsed.error).toContain('--expires-in');
    }
  });
});

describe('parseKeysArgs', () => {
  const action = (argv: string[]): unknown => {
    const parsed = parseKeysArgs(argv, {});
    return parsed.ok ? parsed.value.action : { error: parsed.error };
  };

  it('reads create with its defaults: a customer, no expiry, no label', () => {
    expect(action(['create', '--plan', 'pro'])).toEqual({ kind: 'create', key: { plan: STANDARD_PLANS.pro, role: 'customer', label: '' } });
  });

  it('reads every option of create, flags before or after the command', () => {
    expect(action(['--role', 'staff', 'create', '--plan', 'enterprise', '--per-minute', '100', '--per-day=5000', '--expires-in', '7d', '--label', 'ci deploys'])).toEqual({
      kind: 'create',
      key: { plan: enterprisePlan(100, 5_000), role: 'staff', label: 'ci deploys', expiresInMs: 604_800_000 },
    });
  });

  it('refuses a bad plan, a missing plan, and limits that do not fit the plan', () => {
    expect(action(['create', '--plan', 'gold'])).toEqual({ error: '--plan "gold": must be one of free, pro, business, enterprise' });
    expect(action(['create'])).toEqual({ error: 'create needs --plan free|pro|business|enterprise' });
    expect(action(['create', '--per-minute', '100', '--per-day', '5000'])).toEqual({ error: '--per-minute and --per-day go with --plan enterprise' });
    expect(action(['create', '--plan', 'enterprise', '--per-minute', '100'])).toEqual({ error: expect.stringContaining('--per-day') });
    expect(action(['create', '--plan', 'enterprise', '--per-minute', '0', '--per-day', '5'])).toEqual({ error: expect.stringContaining('--per-minute') });
    expect(action(['create', '--plan', 'enterprise', '--per-minute', '5', '--per-day', '4294967296'])).toEqual({ error: expect.stringContaining('--per-day') });
    expect(action(['create', '--plan', 'pro', '--per-minute', '100'])).toEqual({ error: expect.stringContaining('for --plan enterprise') });
  });

  it('refuses a bad role, expiry or label', () => {
    expect(action(['create', '--plan', 'pro', '--role', 'admin'])).toEqual({ error: '--role "admin": must be customer or staff' });
    expect(action(['create', '--plan', 'pro', '--expires-in', '2w'])).toEqual({ error: expect.stringContaining('--expires-in "2w"') });
    expect(action(['create', '--plan', 'pro', '--label', 'a\nb'])).toEqual({ error: expect.stringContaining('--label') });
    expect(action(['create', '--plan', 'pro', '--label', 'x'.repeat(101)])).toEqual({ error: expect.stringContaining('--label') });
  });

  it('refuses unknown flags, flags without their value, stray arguments and unknown commands', () => {
    expect(action(['create', '--plan', 'pro', '--colour', 'red'])).toEqual({ error: expect.stringContaining("'--colour'") });
    expect(action(['create', '--plan'])).toEqual({ error: expect.stringContaining('--plan') });
    expect(action(['create', 'extra', '--plan', 'pro'])).toEqual({ error: 'create takes no argument: "extra"' });
    expect(action(['list', '--plan', 'pro'])).toEqual({ error: '--plan is an option of create and update, not of list' });
    expect(action(['show', 'key_1', '--label', 'x'])).toEqual({ error: '--label is an option of create and update, not of show' });
    expect(action(['list', 'all'])).toEqual({ error: 'list takes no argument: "all"' });
    expect(action(['revoke'])).toEqual({ error: expect.stringContaining('revoke needs the ID') });
    expect(action(['revoke', 'a', 'b'])).toEqual({ error: 'revoke takes one ID' });
    expect(action(['show'])).toEqual({ error: expect.stringContaining('show needs the ID') });
    expect(action(['show', 'a', 'b'])).toEqual({ error: 'show takes one ID' });
    expect(action([])).toEqual({ error: 'a command is required: create, update, show, unban, reset, roll, list, revoke, credits or usage' });
    expect(action(['delete', 'x'])).toEqual({ error: 'unknown command "delete": expected create, update, show, unban, reset, roll, list, revoke, credits or usage' });
  });

  it('reads update with only what it changes, through the same readers as create', () => {
    expect(action(['update', 'key_1', '--plan', 'business'])).toEqual({ kind: 'update', id: 'key_1', changes: { plan: STANDARD_PLANS.business } });
    expect(action(['update', '--role', 'staff', 'key_1', '--label', '', '--expires-in', '12h'])).toEqual({
      kind: 'update',
      id: 'key_1',
      changes: { role: 'staff', label: '', expiresInMs: 43_200_000 },
    });
    expect(action(['update', 'key_1', '--plan', 'enterprise', '--per-minute', '100', '--per-day', '5000'])).toEqual({
      kind: 'update',
      id: 'key_1',
      changes: { plan: enterprisePlan(100, 5_000) },
    });
  });

  it('refuses an update without an id, with nothing to change, or with a value create would refuse', () => {
    expect(action(['update', '--plan', 'pro'])).toEqual({ error: 'update needs the ID of a key (petstore keys list shows them)' });
    expect(action(['update', 'a', 'b', '--plan', 'pro'])).toEqual({ error: 'update takes one ID' });
    expect(action(['update', 'key_1'])).toEqual({ error: 'update needs something to change: --plan, --role, --expires-in, --label or --limit' });
    expect(action(['update', 'key_1', '--plan', 'gold'])).toEqual({ error: '--plan "gold": must be one of free, pro, business, enterprise' });
    expect(action(['update', 'key_1', '--plan', 'enterprise', '--per-minute', '0', '--per-day', '5'])).toEqual({ error: expect.stringContaining('--per-minute must be') });
    expect(action(['update', 'key_1', '--plan', 'enterprise', '--per-minute', '5', '--per-day', '4294967296'])).toEqual({ error: expect.stringContaining('--per-day must be') });
    expect(action(['update', 'key_1', '--per-day', '5000'])).toEqual({ error: '--per-minute and --per-day go with --plan enterprise' });
    expect(action(['update', 'key_1', '--plan', 'pro', '--per-minute', '100'])).toEqual({ error: expect.stringContaining('for --plan enterprise') });
    expect(action(['update', 'key_1', '--expires-in', 'tomorrow'])).toEqual({ error: expect.stringContaining('--expires-in "tomorrow"') });
    expect(action(['update', 'key_1', '--role', 'admin'])).toEqual({ error: '--role "admin": must be customer or staff' });
    expect(action(['update', 'key_1', '--label', 'a\tb'])).toEqual({ error: expect.stringContaining('--label') });
  });

  it('reads --limit RULE=N[:MODE] (repeatable) on create and update, and --unset-limit RULE on update, unchecked against a plan until the key is known', () => {
    expect(action(['create', '--plan', 'pro', '--limit', 'minute=600', '--limit', 'day=5000:shadow'])).toEqual({
      kind: 'create',
      key: { plan: STANDARD_PLANS.pro, role: 'customer', label: '', overrides: { set: { minute: { limit: 600 }, day: { limit: 5_000, mode: 'shadow' } }, unset: [] } },
    });
    expect(action(['update', 'key_1', '--limit', 'search=60:enforce', '--unset-limit', 'burst', '--unset-limit', 'week'])).toEqual({
      kind: 'update',
      id: 'key_1',
      changes: { overrides: { set: { search: { limit: 60, mode: 'enforce' } }, unset: ['burst', 'week'] } },
    });
    expect(action(['update', 'key_1', '--unset-limit', 'search'])).toEqual({ kind: 'update', id: 'key_1', changes: { overrides: { set: {}, unset: ['search'] } } });
  });

  it('refuses a --limit that is not RULE=N[:MODE] with N a whole number from 1 to 4294967295, a rule given twice, and --unset-limit on create', () => {
    expect(action(['update', 'key_1', '--limit', 'search'])).toEqual({ error: '--limit "search": expected RULE=N or RULE=N:MODE (search=60, burst=5:shadow)' });
    expect(action(['update', 'key_1', '--limit', 'search=1.5'])).toEqual({ error: expect.stringContaining('--limit "search=1.5": expected RULE=N') });
    expect(action(['update', 'key_1', '--limit', 'search=0'])).toEqual({ error: '--limit search=0: N must be a whole number from 1 to 4294967295' });
    expect(action(['update', 'key_1', '--limit', 'search=4294967296'])).toEqual({ error: '--limit search=4294967296: N must be a whole number from 1 to 4294967295' });
    expect(action(['update', 'key_1', '--limit', 'search=5:strict'])).toEqual({ error: '--limit search=5:strict: the mode must be enforce or shadow' });
    expect(action(['update', 'key_1', '--limit', 'search=5', '--limit', 'search=6'])).toEqual({ error: '--limit names search twice' });
    expect(action(['update', 'key_1', '--limit', 'search=5', '--unset-limit', 'search'])).toEqual({ error: 'search is given to both --limit and --unset-limit' });
    expect(action(['create', '--plan', 'pro', '--unset-limit', 'minute'])).toEqual({ error: '--unset-limit is an option of update, not of create' });
    expect(action(['show', 'key_1', '--limit', 'minute=5'])).toEqual({ error: '--limit is an option of create and update, not of show' });
  });

  it('reads list, show, revoke and --help', () => {
    expect(action(['list'])).toEqual({ kind: 'list' });
    expect(action(['show', 'key_0123'])).toEqual({ kind: 'show', id: 'key_0123' });
    expect(action(['revoke', 'key_0123'])).toEqual({ kind: 'revoke', id: 'key_0123' });
    expect(action(['--help'])).toEqual({ kind: 'help' });
    expect(action(['create', '-h'])).toEqual({ kind: 'help' });
  });

  it('reads credits with --set or --add, and usage with its key, months or days, and format', () => {
    expect(action(['credits', 'key_1'])).toEqual({ kind: 'credits', id: 'key_1' });
    expect(action(['credits', 'key_1', '--set', '0'])).toEqual({ kind: 'credits', id: 'key_1', change: { set: 0 } });
    expect(action(['credits', 'key_1', '--add=-25'])).toEqual({ kind: 'credits', id: 'key_1', change: { add: -25 } });
    expect(action(['usage'])).toEqual({ kind: 'usage', range: {}, format: 'csv' });
    expect(action(['usage', '--key', 'key_1', '--from', '2026-01', '--to', '2026-02-28', '--format', 'json'])).toEqual({
      kind: 'usage',
      keyId: 'key_1',
      range: { from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 2, 1) },
      format: 'json',
    });
  });

  it('refuses credits and usage input it cannot read, naming the flag', () => {
    expect(action(['credits'])).toEqual({ error: 'credits needs the ID of a key (petstore keys list shows them)' });
    expect(action(['credits', 'key_1', '--set', '5', '--add', '5'])).toEqual({ error: '--set and --add go one at a time: give one' });
    for (const value of ['1.5', '-1', '1e3', '+5', '0x10', '', '1000000000001']) {
      expect(action(['credits', 'key_1', `--set=${value}`]), value).toEqual({ error: `--set ${JSON.stringify(value)}: must be a whole number from 0 to 1000000000000` });
    }
    expect(action(['credits', 'key_1', '--add=-1000000000001'])).toEqual({ error: expect.stringContaining('--add "-1000000000001": must be a whole number from -1000000000000') });
    expect(action(['credits', 'key_1', '--add', '-5'])).toEqual({ error: expect.stringContaining("use '--add=-XYZ'") });
    expect(action(['usage', 'key_1'])).toEqual({ error: 'usage takes no argument: "key_1" (--key ID names one key)' });
    for (const value of ['2026', '2026-13', '2026-02-29', '2026-1-01', '1969-12', 'last month']) {
      expect(action(['usage', '--from', value]), value).toEqual({ error: `--from ${JSON.stringify(value)}: must be a month YYYY-MM or a day YYYY-MM-DD (UTC), from 1970` });
    }
    expect(action(['usage', '--from', '2026-03', '--to', '2026-02'])).toEqual({ error: '--from 2026-03 comes after --to 2026-02' });
    expect(action(['usage', '--format', 'xml'])).toEqual({ error: '--format "xml": must be csv or json' });
    expect(action(['show', 'key_1', '--set', '5'])).toEqual({ error: '--set is an option of credits, not of show' });
    expect(action(['credits', 'key_1', '--from', '2026-01'])).toEqual({ error: '--from is an option of usage, not of credits' });
  });

  it('applies the store flags over the environment variables they mirror', () => {
    const parsed = parseKeysArgs(['list', '--store', 'redis', '--redis-url', 'redis://10.0.0.1:6379', '--redis-prefix', 'p:'], {
      PETSTORE_STORE: 'memory',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PETSTORE_ENV: 'staging',
    });
    expect(parsed.ok && parsed.value.environ).toEqual({
      PETSTORE_STORE: 'redis',
      REDIS_URL: 'redis://10.0.0.1:6379',
      PETSTORE_REDIS_PREFIX: 'p:',
      PETSTORE_ENV: 'staging',
    });
  });
});

/** runKeysCommand over a memory registry standing in for Redis, with its output captured. */
const harness = () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 4, 0, 0));
  const registry = new MemoryApiKeyRegistry(clock);
  const quotas = new MemoryQuotaStore(clock);
  const credits = new MemoryCreditLedger();
  const out: string[] = [];
  const err: string[] = [];
  const opened: PetStoreConfig[] = [];
  let counter = 0;
  const deps: Partial<KeysDependencies> = {
    openAdmin: async (config) => {
      opened.push(config);
      return { admin: registry, clock, quotas: async () => quotas, credits: async () => credits, close: async () => {} };
    },
    // Deterministic: each call a buffer of its own repeated byte.
    randomBytes: (bytes) => Buffer.alloc(bytes, ++counter),
  };
  const run = async (argv: string[], environ: Record<string, string> = REDIS_ENV): Promise<number> => {
    out.length = 0;
    err.length = 0;
    return runKeysCommand(argv, environ, { out: (line) => out.push(line), err: (line) => err.push(line) }, deps);
  };
  /** Requests of the key with `digest`, as a server admits them (counted). */
  const spend = (digest: string, requests: number, ban = DEFAULT_BAN_POLICY): void => {
    const admission = new RequestAdmission(registry, quotas, { anonymousPolicy: { rules: [] }, ban });
    for (let i = 0; i < requests; i++) void admission.admit(digest, '127.0.0.1');
  };
  return { run, out, err, opened, registry, clock, spend, credits };
};

/** The strikes line show printed. */
const strikesLine = (out: readonly string[]): string | undefined => out.find((line) => line.startsWith('strikes:'));

/** The id and key create printed. */
const created = (out: readonly string[]): { id: string; key: string } => ({
  id: /^id:\s+(\S+)/.exec(out[0] ?? '')?.[1] ?? '',
  key: /^key:\s+(\S+)/.exec(out[1] ?? '')?.[1] ?? '',
});

describe('runKeysCommand', () => {
  it('answers a command line it cannot understand with the reason and the usage, exit 2, touching no store', async () => {
    const { run, out, err, opened } = harness();
    expect(await run(['create', '--plan', 'gold'])).toBe(2);
    expect(err).toEqual(['petstore keys: --plan "gold": must be one of free, pro, business, enterprise', KEYS_USAGE]);
    expect(await run(['list', '--verbose'])).toBe(2);
    expect(err[0]).toMatch(/^petstore keys: Unknown option '--verbose'/);
    expect(err[1]).toBe(KEYS_USAGE);
    expect(out).toEqual([]);
    expect(opened).toEqual([]);
  });

  it('prints the usage on --help, exit 0', async () => {
    const { run, out } = harness();
    expect(await run(['--help'])).toBe(0);
    expect(out).toEqual([KEYS_USAGE]);
  });

  it('refuses the memory store, saying why, exit 1: the default outside staging and production', async () => {
    const { run, err, opened } = harness();
    expect(await run(['list'], {})).toBe(1);
    expect(err).toEqual([expect.stringMatching(/^petstore keys: the memory store lives inside each server process.*PETSTORE_STORE=redis/)]);
    expect(await run(['list', '--store', 'memory'], REDIS_ENV)).toBe(1);
    // Its keys come from PETSTORE_API_KEYS: changed by changing that and restarting, not here.
    for (const argv of [['update', 'key_1', '--plan', 'pro'], ['show', 'key_1']]) {
      expect(await run(argv, {})).toBe(1);
      expect(err).toEqual([expect.stringMatching(/^petstore keys: the memory store lives inside each server process/)]);
    }
    expect(opened).toEqual([]);
  });

  it('uses the store the server would: Redis by default in staging and production, with its URL and prefix', async () => {
    const { run, opened } = harness();
    expect(await run(['list'], { PETSTORE_ENV: 'production', REDIS_URL: 'redis://10.1.2.3:6380', PETSTORE_REDIS_PREFIX: 'shop:' })).toBe(0);
    // Counters from the shared store or none: an outage fails show and list rather than showing a local store's.
    expect(opened).toMatchObject([{ store: 'redis', redisUrl: 'redis://10.1.2.3:6380', redisPrefix: 'shop:', quotaFallback: 'deny' }]);
  });

  it('reports a bad store setting as the server does, exit 1', async () => {
    const { run, err } = harness();
    expect(await run(['list'], { PETSTORE_STORE: 'redis', PETSTORE_REDIS_PREFIX: '{x}' })).toBe(1);
    expect(err).toEqual([expect.stringMatching(/^petstore keys: PETSTORE_REDIS_PREFIX="\{x\}": must not contain braces/)]);
  });

  it('reports an unreachable store in one line, exit 1', async () => {
    const err: string[] = [];
    const code = await runKeysCommand(['list'], REDIS_ENV, { out: () => {}, err: (line) => err.push(line) }, {
      openAdmin: async () => {
        throw new StoreUnavailableError('Redis at redis://127.0.0.1:1');
      },
    });
    expect(code).toBe(1);
    expect(err).toEqual(['petstore keys: Redis at redis://127.0.0.1:1 is unavailable']);
  });

  it('creates a key: prints it once with its id; the store holds its digest, the key works', async () => {
    const { run, out, registry } = harness();
    expect(await run(['create', '--plan', 'business', '--role', 'staff', '--expires-in', '30m', '--label', 'ci deploys'])).toBe(0);
    const key = Buffer.alloc(32, 1).toString('base64url');
    const id = `key_${Buffer.alloc(8, 2).toString('hex')}`;
    expect(out).toEqual([
      `id:      ${id}`,
      `key:     ps_${key}`,
      'plan:    business (1000/min, 100000/day), staff',
      'expires: 2026-11-23T04:30:00Z',
      'label:   ci deploys',
      'The key is shown only this once: the store keeps its digest, not the key.',
    ]);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(registry.grantOf(digestApiKey(`ps_${key}`))).toMatchObject({ plan: STANDARD_PLANS.business, role: 'staff' });
  });

  it('lists id, state, plan, role, dates and label, never a key; revokes by id', async () => {
    const { run, out, err, clock } = harness();
    await run(['create', '--plan', 'pro', '--label', 'first']);
    const [, firstKey = ''] = /^key:\s+(\S+)/.exec(out[1] ?? '') ?? [];
    const [, firstId = ''] = /^id:\s+(\S+)/.exec(out[0] ?? '') ?? [];
    clock.advance(1_000);
    await run(['create', '--plan', 'enterprise', '--per-minute', '100', '--per-day', '5000', '--expires-in', '90s']);
    const [, secondId = ''] = /^id:\s+(\S+)/.exec(out[0] ?? '') ?? [];
    clock.advance(1_000);
    await run(['create', '--plan', 'free', '--label', 'to revoke']);
    const [, thirdId = ''] = /^id:\s+(\S+)/.exec(out[0] ?? '') ?? [];

    expect(await run(['revoke', thirdId])).toBe(0);
    expect(out).toEqual([`Revoked ${thirdId}: every instance refuses it within 5 s.`]);
    expect(await run(['revoke', thirdId])).toBe(0);
    expect(out).toEqual([`${thirdId} was revoked already.`]);
    expect(await run(['revoke', 'key_unknown'])).toBe(1);
    expect(err).toEqual(['petstore keys: no key has the id "key_unknown" (petstore keys list shows them)']);

    clock.advance(90_000);
    expect(await run(['list'])).toBe(0);
    expect(out.map((line) => line.split(/\s{2,}/))).toEqual([
      ['ID', 'STATE', 'PLAN', 'ROLE', 'USED TODAY', 'CREATED', 'EXPIRES', 'REVOKED', 'LABEL'],
      [firstId, 'active', 'pro (300/min, 10000/day)', 'customer', '0', '2026-11-23T04:00:00Z', 'never', '-', 'first'],
      [secondId, 'expired', 'enterprise (100/min, 5000/day)', 'customer', '0', '2026-11-23T04:00:01Z', '2026-11-23T04:01:31Z', '-'],
      [thirdId, 'revoked', 'free (60/min, 1000/day)', 'customer', '0', '2026-11-23T04:00:02Z', 'never', '2026-11-23T04:00:02Z', 'to revoke'],
    ]);
    expect(out.join('\n')).not.toContain(firstKey.slice(3));
  });

  it('says so when no key was created', async () => {
    const { run, out } = harness();
    expect(await run(['list'], { PETSTORE_STORE: 'redis', PETSTORE_REDIS_PREFIX: 'shop:' })).toBe(0);
    expect(out).toEqual(['No keys created with petstore keys create under the prefix "shop:".']);
  });

  it('updates a key by id: prints what it now grants; the grant by digest changes, its id, key and creation stay', async () => {
    const { run, out, registry, clock } = harness();
    await run(['create', '--plan', 'free', '--label', 'shop']);
    const { id, key } = created(out);
    clock.advance(60_000);
    expect(await run(['update', id, '--plan', 'enterprise', '--per-minute', '500', '--per-day', '20000', '--role', 'staff', '--expires-in', '7d'])).toBe(0);
    expect(out).toEqual([
      `Updated ${id}: every instance applies it within 5 s.`,
      'plan:    enterprise (500/min, 20000/day), staff',
      'expires: 2026-11-30T04:01:00Z',
      'label:   shop',
    ]);
    expect(registry.grantOf(digestApiKey(key))).toEqual({ plan: enterprisePlan(500, 20_000), role: 'staff', expiresAt: Date.UTC(2026, 10, 30, 4, 1) });
    expect(await run(['update', id, '--label', 'shop, upgraded'])).toBe(0);
    expect(out.at(-1)).toBe('label:   shop, upgraded');
    expect((await registry.findKey(id))?.key).toMatchObject({ id, createdAt: Date.UTC(2026, 10, 23, 4), updatedAt: Date.UTC(2026, 10, 23, 4, 1) });
  });

  it('refuses to update an unknown id or a revoked key, exit 1, and bad input with the usage, exit 2: nothing changes', async () => {
    const { run, out, err, registry } = harness();
    await run(['create', '--plan', 'pro']);
    const { id, key } = created(out);
    const before = await registry.listKeys();
    expect(await run(['update', 'key_unknown', '--plan', 'free'])).toBe(1);
    expect(err).toEqual(['petstore keys: no key has the id "key_unknown" (petstore keys list shows them)']);
    for (const argv of [
      ['update', id],
      ['update', id, '--plan', 'platinum'],
      ['update', id, '--plan', 'enterprise', '--per-minute', '0', '--per-day', '10'],
      ['update', id, '--expires-in', '1y'],
    ]) {
      expect(await run(argv), argv.join(' ')).toBe(2);
      expect(err[1]).toBe(KEYS_USAGE);
    }
    expect(await registry.listKeys()).toEqual(before);

    expect(await run(['revoke', id])).toBe(0);
    expect(await run(['update', id, '--plan', 'business'])).toBe(1);
    expect(err).toEqual([`petstore keys: ${id} is revoked, and a revoked key stays so: nothing changed (petstore keys create makes a new one)`]);
    expect(registry.grantOf(digestApiKey(key))).toBeUndefined();
    expect((await registry.findKey(id))?.key.plan).toEqual(STANDARD_PLANS.pro);
  });

  it("prints a plans file's plan by its rules (limit per window, burst and shadow ones marked), a built-in one by its two numbers", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'keys-plans-')), 'plans.json');
    const rules = [
      { name: 'minute', limit: 100, window: '1m' },
      { name: 'search', limit: 10, window: '90s', match: ['listPets'], cost: 2 },
      { name: 'burst', limit: 5, window: 1_020, mode: 'shadow' },
      { name: 'week', limit: 9_000, window: '7d' },
      { name: 'refill', burst: 20, rate: 4, per: '1s' },
    ];
    writeFileSync(file, JSON.stringify({ plans: { github: { rules } } }));
    const { run, out } = harness();
    expect(await run(['create', '--plan', 'github'], { ...REDIS_ENV, PETSTORE_PLANS: file })).toBe(0);
    const planLine = 'plan:    github (minute 100/1m, search 10/90s, burst 5/1020ms shadow, week 9000/7d, refill 20/5s bucket), customer';
    expect(out[2]).toBe(planLine);
    const { id } = created(out);
    expect(await run(['show', id])).toBe(0);
    expect(out[2]).toBe(planLine);
    expect(await run(['list'])).toBe(0);
    expect(out[1]?.split(/\s{2,}/)[2]).toBe('github (minute 100/1m, search 10/90s, burst 5/1020ms shadow, week 9000/7d, refill 20/5s bucket)');
  });

  it("gives a key limits of its own for rules of its plan: create and update print them beside the plan's, the grant decides by them, show counts against them", async () => {
    const { run, out, registry, spend } = harness();
    expect(await run(['create', '--plan', 'free', '--limit', 'minute=100'])).toBe(0);
    expect(out[2]).toBe('plan:    free (minute 100/1m overriding 60, day 1000/1d), customer');
    const { id, key } = created(out);
    expect(registry.grantOf(digestApiKey(key))?.plan.rules.map((rule) => rule.limit)).toEqual([100, 1_000]);
    spend(digestApiKey(key), 80);
    await run(['show', id]);
    expect(out.slice(-2)).toEqual([expect.stringMatching(/^minute\s+100\s+80\s+20\s/), expect.stringMatching(/^day\s+1000\s+80\s+920\s/)]);

    expect(await run(['update', id, '--limit', 'day=2000:shadow'])).toBe(0);
    expect(out[1]).toBe('plan:    free (minute 100/1m overriding 60, day 2000/1d shadow overriding 1000), customer');
    expect(await run(['update', id, '--plan', 'pro', '--unset-limit', 'minute'])).toBe(0);
    expect(out[1]).toBe('plan:    pro (minute 300/1m, day 2000/1d shadow overriding 10000), customer');
    expect(await run(['update', id, '--unset-limit', 'day'])).toBe(0);
    expect(out[1]).toBe('plan:    pro (300/min, 10000/day), customer');
    expect((await registry.findKey(id))?.key).not.toHaveProperty('overrides');
    expect(registry.grantOf(digestApiKey(key))?.plan).toEqual(STANDARD_PLANS.pro);
  });

  it("refuses overrides that do not fit the key's plan, naming the rule and what to give, exit 1: nothing changes", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'keys-plans-')), 'plans.json');
    const rules = [
      { name: 'minute', limit: 100, window: '1m' },
      { name: 'search', limit: 10, window: '90s', match: ['listPets'], cost: 4 },
    ];
    writeFileSync(file, JSON.stringify({ plans: { github: { rules } } }));
    const env = { ...REDIS_ENV, PETSTORE_PLANS: file };
    const { run, out, err, registry } = harness();
    expect(await run(['create', '--plan', 'github', '--limit', 'serch=60'], env)).toBe(1);
    expect(err).toEqual(['petstore keys: --limit serch=N: plan github has no rule serch (its rules: minute, search); nothing changed']);
    expect(await registry.listKeys()).toEqual([]);
    expect(await run(['create', '--plan', 'github', '--limit', 'search=60'], env)).toBe(0);
    const { id } = created(out);
    const before = await registry.listKeys();

    const refusals: [string[], string][] = [
      [['update', id, '--limit', 'search=3'], "--limit search=N must be a whole number from 4 to 4294967295, the rule's largest cost being 4"],
      [['update', id, '--limit', 'day=3'], '--limit day=N: plan github has no rule day (its rules: minute, search)'],
      [['update', id, '--unset-limit', 'day'], '--unset-limit day: plan github has no rule day (its rules: minute, search)'],
      [['update', id, '--limit', 'minute=5:shadow'], 'the overrides would leave plan github no enforced rule over every request: keep minute enforced'],
      [['update', id, '--plan', 'pro'], 'the key overrides search, which plan pro has no rule of (its rules: minute, day): give --unset-limit search with the change of plan'],
    ];
    for (const [argv, reason] of refusals) {
      expect(await run(argv, env), argv.join(' ')).toBe(1);
      expect(err).toEqual([`petstore keys: ${reason}; nothing changed`]);
    }
    expect(await registry.listKeys()).toEqual(before);
    expect(await run(['update', id, '--plan', 'pro', '--unset-limit', 'search'], env)).toBe(0);
    expect((await registry.findKey(id))?.key).toMatchObject({ plan: STANDARD_PLANS.pro });
    expect(await run(['update', 'key_unknown', '--limit', 'minute=5'])).toBe(1);
    expect(err).toEqual(['petstore keys: no key has the id "key_unknown" (petstore keys list shows them)']);
  });

  it('shows a key: its plan, role, dates and state, and per rule its limit, used, remaining and reset; never the key', async () => {
    const { run, out, err, clock, spend } = harness();
    await run(['create', '--plan', 'free', '--label', 'shop', '--expires-in', '30d']);
    const { id, key } = created(out);
    clock.advance(30_500);
    spend(digestApiKey(key), 12);
    expect(await run(['show', id])).toBe(0);
    expect(out).toEqual([
      `id:      ${id}`,
      'label:   shop',
      'plan:    free (60/min, 1000/day), customer',
      'state:   active',
      'created: 2026-11-23T04:00:00Z',
      'updated: -',
      'expires: 2026-12-23T04:00:00Z',
      'revoked: -',
      'rolled:  -',
      'banned:  no',
      'strikes: 0 of 20 within 600 s',
      expect.stringMatching(/^RULE\s+LIMIT\s+USED\s+REMAINING\s+RESET$/),
      expect.stringMatching(/^minute\s+60\s+12\s+48\s+2026-11-23T04:01:31Z$/),
      expect.stringMatching(/^day\s+1000\s+12\s+988\s+2026-11-24T04:24:00Z$/),
    ]);
    expect(out.join('\n')).not.toContain(key.slice(3));
    expect(out.join('\n')).not.toContain(digestApiKey(key));

    expect(await run(['list'])).toBe(0);
    expect(out[1]?.split(/\s{2,}/)[4], 'used today').toBe('12');
    expect(await run(['show', 'key_unknown'])).toBe(1);
    expect(err).toEqual(['petstore keys: no key has the id "key_unknown" (petstore keys list shows them)']);
  });

  it('shows the strikes that count towards a ban: refusals before the Retry-After told, within the strike window', async () => {
    const { run, out, clock, spend } = harness();
    await run(['create', '--plan', 'free']);
    const { id, key } = created(out);
    // 60 admitted, a first refusal (no strike), then 3 strikes.
    spend(digestApiKey(key), 60 + 1 + 3);
    await run(['show', id]);
    expect(strikesLine(out)).toBe('strikes: 3 of 20 within 600 s');
    expect(out, 'showing strikes nothing').toContain('banned:  no');
    await run(['show', id]);
    expect(strikesLine(out)).toBe('strikes: 3 of 20 within 600 s');
    clock.advance(600_000);
    await run(['show', id]);
    expect(strikesLine(out)).toBe('strikes: 0 of 20 within 600 s');

    // Under the servers' ban policy, as their environment sets it.
    const env = { ...REDIS_ENV, PETSTORE_BAN_STRIKES: '5', PETSTORE_BAN_WINDOW_SECONDS: '60', PETSTORE_BAN_SECONDS: '300' };
    clock.advance(DAY_MS);
    spend(digestApiKey(key), 60 + 1 + 2, { strikes: 5, strikeWindowMs: 60_000, banMs: 300_000 });
    await run(['show', id], env);
    expect(strikesLine(out)).toBe('strikes: 2 of 5 within 60 s');
  });

  it('shows a key spent to its limit, an update to a larger plan, and a ban with the time it lets requests in again', async () => {
    const { run, out, clock, spend } = harness();
    await run(['create', '--plan', 'free']);
    const { id, key } = created(out);
    spend(digestApiKey(key), 60);
    await run(['show', id]);
    expect(out.slice(-2)).toEqual([expect.stringMatching(/^minute\s+60\s+60\s+0\s+2026-11-23T04:01:01Z$/), expect.stringMatching(/^day\s+1000\s+60\s+940\s/)]);
    await run(['update', id, '--plan', 'pro']);
    await run(['show', id]);
    expect(out.slice(-2), 'counted requests stay counted under the new limits').toEqual([
      expect.stringMatching(/^minute\s+300\s+60\s+240\s/),
      expect.stringMatching(/^day\s+10000\s+60\s+9940\s/),
    ]);
    expect(out[5]).toBe('updated: 2026-11-23T04:00:00Z');

    await run(['update', id, '--plan', 'free']);
    // The first refusal is no strike; the 20 that follow it are, and the 20th bans the key.
    spend(digestApiKey(key), 1 + DEFAULT_BAN_POLICY.strikes);
    clock.advance(1_000);
    await run(['show', id]);
    expect(out.find((line) => line.startsWith('banned:'))).toMatch(/^banned: {2}yes, every request refused until 2026-11-23T04:15:00Z$/);
    expect(strikesLine(out), 'the strikes that earned the ban are spent on it').toBe('strikes: 0 of 20 within 600 s');
    expect(out.slice(-2), 'during a ban nothing remains, and what was used is not told').toEqual([
      expect.stringMatching(/^minute\s+60\s+-\s+0\s/),
      expect.stringMatching(/^day\s+1000\s+-\s+0\s/),
    ]);
    await run(['list']);
    expect(out[1]?.split(/\s{2,}/)[4]).toBe('-');
  });

  describe('credits and usage', () => {
    const RULE = { name: 'monthly', credits: 100, initial: 50, refill: 'month' as const };
    /** A key made by create, given a plan with credits as a plans file's would carry; its id and credit subject. */
    const keyWithCredits = async ({ run, out, registry, clock }: ReturnType<typeof harness>) => {
      await run(['create', '--plan', 'pro']);
      const { id, key } = created(out);
      await registry.updateKey(id, { plan: { ...STANDARD_PLANS.pro, credits: RULE } }, clock.now());
      return { id, subject: keySubject(digestApiKey(key)) };
    };

    it("prints a key's credit rule, balance, period and next refill; show prints its balance", async () => {
      const keys = harness();
      const { id, subject } = await keyWithCredits(keys);
      keys.credits.spend(subject, RULE, 8, keys.clock.now());
      expect(await keys.run(['credits', id])).toBe(0);
      expect(keys.out).toEqual([
        `id:      ${id}`,
        'credits: monthly: 100 each calendar month (UTC), initial 50',
        'balance: 42',
        'period:  from 2026-11-01',
        'refill:  2026-12-01T00:00:00.000Z, up to 100',
      ]);
      await keys.run(['show', id]);
      expect(keys.out).toContain('credits: monthly: 100 each calendar month (UTC), initial 50; balance 42, of the period from 2026-11-01; refilled up to 100 at 2026-12-01T00:00:00.000Z');
    });

    it('sets and tops up a balance (never below 0); refuses an unknown key or a plan without credits, exit 1, changing nothing', async () => {
      const keys = harness();
      const { id } = await keyWithCredits(keys);
      expect(await keys.run(['credits', id, '--add', '25'])).toBe(0);
      expect(keys.out[0]).toBe(`Changed the credits of ${id}: 50 before, 75 now.`);
      expect(await keys.run(['credits', id, '--add=-100'])).toBe(0);
      expect(keys.out[0]).toBe(`Changed the credits of ${id}: 75 before, 0 now.`);
      expect(await keys.run(['credits', id, '--set', '1000'])).toBe(0);
      expect(keys.out[0]).toBe(`Changed the credits of ${id}: 0 before, 1000 now.`);
      expect(await keys.run(['credits', id, '--set', '-1'])).toBe(2);

      expect(await keys.run(['credits', 'key_0000000000000000', '--add', '1'])).toBe(1);
      expect(keys.err).toEqual(['petstore keys: no key has the id "key_0000000000000000" (petstore keys list shows them)']);
      await keys.run(['create', '--plan', 'pro']);
      const plain = created(keys.out).id;
      for (const argv of [['credits', plain], ['credits', plain, '--set', '5']]) {
        expect(await keys.run(argv)).toBe(1);
        expect(keys.err).toEqual([`petstore keys: the plan of ${plain} carries no credits, so it has no balance: nothing read or changed (petstore keys show ${plain} shows its plan)`]);
      }
      await keys.run(['credits', id]);
      expect(keys.out[2]).toBe('balance: 1000');
    });

    it('writes the usage ledger as CSV (CRLF lines, a header) or JSON, by key id, a gone key by its subject', async () => {
      const keys = harness();
      const { id, subject } = await keyWithCredits(keys);
      keys.credits.spend(subject, RULE, 8, keys.clock.now());
      keys.credits.spend('key:gone', RULE, 1, keys.clock.now());
      expect(await keys.run(['usage'])).toBe(0);
      expect(keys.out.join('\n')).toBe(
        ['key,period,spent,spends,refused,refunded,refunds,refilled,adjusted', `${id},2026-11-01,8,1,0,0,0,0,0`, 'key:gone,2026-11-01,1,1,0,0,0,0,0', ''].join('\r\n').slice(0, -1),
      );
      expect(await keys.run(['usage', '--key', id, '--format', 'json', '--from', '2026-11-01', '--to', '2026-11'])).toBe(0);
      expect(JSON.parse(keys.out.join(''))).toEqual([{ key: id, period: '2026-11-01', spent: 8, spends: 1, refused: 0, refunded: 0, refunds: 0, refilled: 0, adjusted: 0 }]);
      expect(await keys.run(['usage', '--from', '2026-12'])).toBe(0);
      expect(keys.out).toEqual(['key,period,spent,spends,refused,refunded,refunds,refilled,adjusted\r']);
      expect(await keys.run(['usage', '--key', 'key_0000000000000000'])).toBe(1);
      expect(keys.err).toEqual(['petstore keys: no key has the id "key_0000000000000000" (petstore keys list shows them)']);
    });
  });
});
