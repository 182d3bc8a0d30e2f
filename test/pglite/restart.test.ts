import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetStore } from '../../src/app/start-pet-store.js';
import type { CreditRule } from '../../src/domain/credits/credit-rule.js';
import { startCli } from '../support/cli-process.js';
import { HttpClient, listAll, type PetBody } from '../support/http-client.js';
import { listAllOrders, type OrderBody } from '../support/test-pet-store.js';

/*
 * PETSTORE_STORE=pglite keeps what it acknowledged across restarts: a server in this process
 * closed and started again on its PETSTORE_DATA_DIR, then the built CLI killed with SIGKILL (no
 * drain, no close: PGlite's files as the kill left them) and started again. Pets, orders, a key
 * made by the admin API and the credits its requests spent are all there afterwards.
 */

const KEY = 'pglite-restart-key-1';
const TOKEN = randomBytes(32).toString('hex');
const MONTHLY: CreditRule = { name: 'monthly', credits: 1_000, refill: 'month' };
const PLANS = { plans: { metered: { rules: [{ name: 'minute', limit: 1_000_000, window: '1m' }, MONTHLY] } } };

interface Acknowledged {
  pets: PetBody[];
  orders: OrderBody[];
  key?: { id: string; secret: string };
  balance?: number;
}

describe('the pglite store across restarts', () => {
  let dir: string;
  let environ: Record<string, string>;
  const acknowledged: Acknowledged = { pets: [], orders: [] };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'petstore-pglite-'));
    writeFileSync(join(dir, 'plans.json'), JSON.stringify(PLANS));
    environ = {
      PORT: '0',
      PETSTORE_ENV: 'test',
      PETSTORE_LOG_LEVEL: 'silent',
      PETSTORE_STORE: 'pglite',
      // Created by the store: it does not exist yet.
      PETSTORE_DATA_DIR: join(dir, 'data'),
      PETSTORE_PLANS: join(dir, 'plans.json'),
      PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:100000000:staff`,
      PETSTORE_ADMIN_PORT: '0',
      PETSTORE_ADMIN_TOKEN: TOKEN,
    };
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = async (adminUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const response = await fetch(`${adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  /** Pets, orders of them, the key's credits spent: each acknowledged write remembered. */
  const write = async (baseUrl: string, adminUrl: string, round: string): Promise<void> => {
    const client = new HttpClient(baseUrl, KEY);
    for (let i = 0; i < 6; i++) {
      const created = await client.post('/pets', { json: { name: `${round} ${i}`, categoryId: i + 1 } });
      expect(created.status, created.text).toBe(201);
      acknowledged.pets.push(created.body as PetBody);
    }
    for (const pet of acknowledged.pets.slice(-3)) {
      const placed = await client.post('/store/orders', { json: { petId: pet.id } });
      expect(placed.status, placed.text).toBe(201);
      acknowledged.orders.push(placed.body as OrderBody);
    }
    if (acknowledged.key === undefined) {
      const created = await admin(adminUrl, 'POST', '/keys', { plan: 'metered', label: 'kept' });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      acknowledged.key = { id: (created.json['key'] as { id: string }).id, secret: created.json['secret'] as string };
    }
    const metered = new HttpClient(baseUrl, acknowledged.key.secret);
    for (let i = 0; i < 7; i++) expect((await metered.get('/pets?limit=1')).status).toBe(200);
    const credits = await admin(adminUrl, 'GET', `/keys/${acknowledged.key.id}/credits`);
    expect(credits.status).toBe(200);
    acknowledged.balance = credits.json['balance'] as number;
  };

  /** Everything acknowledged so far, read back as a client and the operator see it. */
  const expectKept = async (baseUrl: string, adminUrl: string): Promise<void> => {
    const client = new HttpClient(baseUrl, KEY);
    const { pets } = await listAll(client);
    const pending = new Set(acknowledged.orders.map((order) => order.petId));
    expect(pets).toEqual(acknowledged.pets.map((pet) => (pending.has(pet.id) ? { ...pet, status: 'pending' } : pet)));
    expect((await listAllOrders(client)).orders).toEqual(acknowledged.orders);
    const credits = await admin(adminUrl, 'GET', `/keys/${acknowledged.key!.id}/credits`);
    expect(credits.json['balance']).toBe(acknowledged.balance);
    // The key's secret still answers as the key.
    expect((await new HttpClient(baseUrl, acknowledged.key!.secret).get('/pets?limit=1')).status).toBe(200);
    acknowledged.balance = (acknowledged.balance ?? 0) - 1;
  };

  it('keeps every record, the key and its credits through a close and a start in this process, and refuses a second store on the open directory', async () => {
    const first = await startPetStore(environ);
    try {
      expect(first.config.store).toBe('pglite');
      await write(first.baseUrl, first.adminUrl!, 'first');
      // PGlite takes no lock of its own: two on one directory would each write over the other's pages.
      await expect(startPetStore(environ)).rejects.toThrow(/in use by process \d+/);
    } finally {
      await first.close();
    }
    expect(existsSync(join(dir, 'data', 'petstore.lock'))).toBe(false);
    const second = await startPetStore(environ);
    try {
      await expectKept(second.baseUrl, second.adminUrl!);
      await write(second.baseUrl, second.adminUrl!, 'second');
    } finally {
      await second.close();
    }
  });

  it('keeps everything it acknowledged when its process is killed with SIGKILL, the next process taking the lock the killed one left; petstore keys opens the directory once no server has it', async () => {
    const killed = startCli(environ);
    const [, baseUrl = ''] = await killed.waitFor(/listening on (\S+\/v1)/, 60_000);
    const [, adminUrl = ''] = await killed.waitFor(/Admin listening on (\S+)/);
    await expectKept(baseUrl, adminUrl);
    await write(baseUrl, adminUrl, 'killed');
    killed.kill('SIGKILL');
    expect(await killed.exited()).toBe('SIGKILL');
    // The killed process's lock is left behind, naming a process that is gone.
    expect(readFileSync(join(dir, 'data', 'petstore.lock'), 'utf8')).toBe(String(killed.child.pid));

    const next = startCli(environ);
    try {
      const [, nextUrl = ''] = await next.waitFor(/listening on (\S+\/v1)/, 60_000);
      const [, nextAdmin = ''] = await next.waitFor(/Admin listening on (\S+)/);
      await expectKept(nextUrl, nextAdmin);
      // An operator's command is refused the directory while a server has it.
      const refused = startCli(environ, ['keys', 'list']);
      expect(await refused.exited()).toBe(1);
      expect(refused.output()).toMatch(/in use by process \d+/);
    } finally {
      next.kill();
      await next.exited();
    }
    // And opens it once the server is stopped: the key the admin API made is there.
    const listed = startCli(environ, ['keys', 'list']);
    expect(await listed.exited(), listed.output()).toBe(0);
    expect(listed.output()).toMatch(new RegExp(`${acknowledged.key!.id}\\s+active\\s+metered.*kept`));
  });
});
