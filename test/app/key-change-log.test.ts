import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryCreditLedger } from '../../src/adapters/memory/memory-credit-ledger.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import type { IssuedKeySchema } from '../../src/adapters/http/admin/admin-key-schemas.js';
import { runKeysCommand } from '../../src/app/cli/keys-command.js';
import { createLogger, type PetStoreLogger } from '../../src/app/logging/logger.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { ManualClock } from '../support/manual-clock.js';

/*
 * One info line per key change (create, update, roll, unban, revoke), naming the key's id, the
 * change and who made it, from both front ends; never the secret.
 */

interface Captured {
  readonly log: PetStoreLogger;
  /** The JSON lines written so far. */
  lines(): Record<string, unknown>[];
  text(): string;
}

const capture = (): Captured => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return {
    log: createLogger('info', out),
    lines: () =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => text,
  };
};

const keyLines = (captured: Captured): Record<string, unknown>[] => captured.lines().filter((line) => typeof line['keyId'] === 'string');

describe('key changes are logged', () => {
  it('from petstore keys: one info line per change, by "cli", with the key id and what changed, never the secret', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 9, 0, 0));
    const registry = new MemoryApiKeyRegistry(clock);
    const captured = capture();
    const out: string[] = [];
    const run = async (argv: string[]): Promise<void> => {
      out.length = 0;
      const code = await runKeysCommand(
        argv,
        { PETSTORE_STORE: 'redis' },
        { out: (line) => out.push(line), err: (line) => out.push(line) },
        {
          openAdmin: async () => ({
            admin: registry,
            clock,
            quotas: async () => new MemoryQuotaStore(clock),
            credits: async () => new MemoryCreditLedger(),
            logger: captured.log.logger,
            close: async () => {},
          }),
          randomBytes,
        },
      );
      expect(code, out.join('\n')).toBe(0);
    };

    await run(['create', '--plan', 'pro', '--label', 'ci']);
    const id = /^id:\s+(\S+)/.exec(out[0] ?? '')?.[1] ?? '';
    const secrets = [/^key:\s+(\S+)/.exec(out[1] ?? '')?.[1] ?? ''];
    await run(['update', id, '--plan', 'enterprise', '--per-minute', '5', '--per-day', '100']);
    await run(['update', id, '--limit', 'minute=9', '--limit', 'day=200:shadow']);
    await run(['update', id, '--unset-limit', 'minute']);
    await run(['roll', id, '--grace', '1h']);
    secrets.push(/^key:\s+(\S+)/m.exec(out.join('\n'))?.[1] ?? '');
    await run(['reset', id]);
    await run(['revoke', id]);
    await run(['revoke', id]);
    await run(['show', id]);
    await run(['list']);

    const lines = keyLines(captured);
    expect(lines.map(({ keyId, change, by, level, msg }) => ({ keyId, change, by, level, msg }))).toEqual(
      ['created', 'updated', 'updated', 'updated', 'rolled', 'reset', 'revoked'].map((change) => ({ keyId: id, change, by: 'cli', level: 30, msg: `key ${change}` })),
    );
    expect(lines[0]).toMatchObject({ plan: 'pro', role: 'customer', label: 'ci' });
    expect(lines[1]).toMatchObject({ plan: 'enterprise', minuteLimit: 5, dayLimit: 100 });
    expect(lines[1]).not.toHaveProperty('overrides');
    // The key's overrides after each change, as --limit writes them.
    expect(lines[2]).toMatchObject({ overrides: 'minute=9,day=200:shadow' });
    expect(lines[2]).not.toHaveProperty('plan');
    expect(lines[3]).toMatchObject({ overrides: 'day=200:shadow' });
    expect(lines[4]).toMatchObject({ previousKeyUntil: new Date(clock.now() + 3_600_000).toISOString() });
    for (const secret of secrets) {
      expect(secret).toMatch(/^ps_/);
      expect(captured.text()).not.toContain(secret);
    }
  });

  it('from petstore keys credits: one line per change, with the rule, the balance before and after, by "cli"; a read logs none', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 9, 0, 0));
    const registry = new MemoryApiKeyRegistry(clock);
    const ledger = new MemoryCreditLedger();
    const captured = capture();
    const out: string[] = [];
    const run = (argv: string[]): Promise<number> => {
      out.length = 0;
      const opened = {
        admin: registry,
        clock,
        quotas: async () => new MemoryQuotaStore(clock),
        credits: async () => ledger,
        logger: captured.log.logger,
        close: async () => {},
      };
      return runKeysCommand(argv, { PETSTORE_STORE: 'redis' }, { out: (line) => out.push(line), err: (line) => out.push(line) }, { openAdmin: async () => opened, randomBytes });
    };
    await run(['create', '--plan', 'pro']);
    const id = /^id:\s+(\S+)/.exec(out[0] ?? '')?.[1] ?? '';
    await registry.updateKey(id, { plan: { ...STANDARD_PLANS.pro, credits: { name: 'monthly', credits: 100, refill: 'month' } } }, clock.now());
    expect(await run(['credits', id, '--add=-30'])).toBe(0);
    expect(await run(['credits', id, '--set', '250'])).toBe(0);
    expect(await run(['credits', id])).toBe(0);
    expect(await run(['credits', id, '--set', '-1'])).toBe(2);
    expect(keyLines(captured).filter((line) => line['change'] === 'credits_changed')).toEqual([
      expect.objectContaining({ keyId: id, change: 'credits_changed', by: 'cli', rule: 'monthly', before: 100, after: 70, add: -30, msg: 'key credits_changed' }),
      expect.objectContaining({ keyId: id, change: 'credits_changed', by: 'cli', rule: 'monthly', before: 70, after: 250, set: 250 }),
    ]);
  });

  describe('from the admin API', () => {
    const TOKEN = randomBytes(32).toString('hex');
    const captured = capture();
    let server: RunningPetStore;
    beforeAll(async () => {
      server = await startPetStore({ PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_ADMIN_TOKEN: TOKEN, PETSTORE_API_KEYS: 'configured-key-1:free' }, { logger: captured.log });
    });
    afterAll(() => server?.close(0, 0));

    /** Json: the shape of the answer the caller expects (taken as given, not checked here). */
    const call = async <Json = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
      const response = await fetch(`${server.adminUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: (await response.json()) as Json };
    };

    it('one info line per change, by "admin_api", with the key id and what changed, never the secret; reads and refusals log none', async () => {
      const created = await call<Static<typeof IssuedKeySchema>>('POST', '/keys', { plan: 'business', role: 'staff', label: 'ops' });
      expect(created.status).toBe(201);
      const id: string = created.json.key.id;
      const secrets: string[] = [created.json.secret];
      expect((await call('PATCH', `/keys/${id}`, { label: 'ops team' })).status).toBe(200);
      expect((await call('PATCH', `/keys/${id}`, { overrides: { minute: { limit: 2_000 } } })).status).toBe(200);
      expect((await call('PATCH', `/keys/${id}`, { overrides: { minute: null } })).status).toBe(200);
      expect((await call('PATCH', `/keys/${id}`, { overrides: { hour: { limit: 5 } } })).status).toBe(400);
      const rolled = await call<Static<typeof IssuedKeySchema>>('POST', `/keys/${id}/roll`);
      expect(rolled.status).toBe(200);
      secrets.push(rolled.json.secret);
      expect((await call('POST', `/keys/${id}/unban`)).status, 'not banned: nothing to log').toBe(409);
      expect((await call('POST', `/keys/${id}/reset`)).status).toBe(200);
      expect((await call('POST', `/keys/${id}/revoke`)).status).toBe(200);
      expect((await call('POST', `/keys/${id}/revoke`)).status).toBe(200);
      expect((await call('PATCH', `/keys/${id}`, { label: 'too late' })).status).toBe(409);
      expect((await call('GET', `/keys/${id}`)).status).toBe(200);
      expect((await call('GET', '/keys')).status).toBe(200);

      const lines = keyLines(captured);
      expect(lines.map(({ keyId, change, by, level }) => ({ keyId, change, by, level }))).toEqual(
        ['created', 'updated', 'updated', 'updated', 'rolled', 'reset', 'revoked'].map((change) => ({ keyId: id, change, by: 'admin_api', level: 30 })),
      );
      expect(lines[0]).toMatchObject({ plan: 'business', role: 'staff', label: 'ops' });
      expect(lines[1]).toMatchObject({ label: 'ops team' });
      expect(lines[1]).not.toHaveProperty('plan');
      expect(lines.slice(2, 4).map((line) => line['overrides'])).toEqual(['minute=2000', 'none']);
      for (const secret of secrets) expect(captured.text()).not.toContain(secret);
    });
  });
});
