import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logging/logger.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { capturedLog } from '../support/captured-log.js';

const KEY = 'credits-reconcile-key';
const TOKEN = 'credits-reconcile-admin-token-0123456789';
/** 40 credits a month, a write costing 5, a 404 refunded: a run spends them all. */
const PLANS = {
  plans: {
    metered: {
      rules: [
        { name: 'minute', limit: 1000, window: '1m' },
        { name: 'monthly', credits: 40, refill: 'month', cost: { createPet: 5, default: 1 }, refund: ['404'] },
      ],
    },
  },
};

/*
 * The usage ledger an operator exports reconciles with the access log of the same period: one
 * spend per request the credits admitted, one refund per answer they gave back, one refusal per
 * 402, and the units add up to the balance GET /v1/rate_limit shows.
 */
describe('the usage ledger against the access log', () => {
  let server: RunningPetStore;
  const log = capturedLog();
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'credits-reconcile-'));
    writeFileSync(join(dir, 'plans.json'), JSON.stringify(PLANS));
    server = await startPetStore(
      {
        PETSTORE_ENV: 'test',
        PORT: '0',
        PETSTORE_ADMIN_PORT: '0',
        PETSTORE_ADMIN_TOKEN: TOKEN,
        PETSTORE_STORE: 'memory',
        PETSTORE_PLANS: join(dir, 'plans.json'),
        PETSTORE_API_KEYS: `${KEY}:metered`,
        PETSTORE_ACCESS_LOG: 'on',
      },
      { logger: createLogger('info', log.stream) },
    );
  });
  afterAll(async () => {
    await server?.close(0, 0);
    rmSync(dir, { recursive: true, force: true });
  });

  const send = async (method: string, path: string, body?: unknown): Promise<number> => {
    const answer = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await answer.arrayBuffer();
    return answer.status;
  };

  it('counts as many spends, refunds and refusals as the access lines of the key show, and its units add up to the balance', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await send('POST', '/pets', { name: `pet ${i}`, categoryId: 1 }));
    for (let i = 0; i < 30; i++) statuses.push(await send('GET', i % 3 === 0 ? '/pets/999' : '/pets?limit=1'));
    expect(statuses.filter((status) => status === 402).length).toBeGreaterThan(0);
    const answer = await fetch(`${server.adminUrl}/keys/usage?format=json`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
    type Row = Record<'spent' | 'spends' | 'refused' | 'refunded' | 'refunds' | 'refilled' | 'adjusted', number>;
    const rows = (await answer.json()) as Row[];
    expect(rows).toHaveLength(1);
    const [row] = rows as [Row];

    await server.flushLogs();
    const lines = log
      .lines()
      .filter((line) => line['msg'] === 'request' && line['plan'] === 'metered');
    const refusedLines = lines.filter((line) => line['verdict'] === 'credits_exhausted');
    const spentLines = lines.filter((line) => line['verdict'] === 'admitted');
    const refundedLines = lines.filter((line) => Array.isArray(line['refunded']) && (line['refunded'] as unknown[]).includes('monthly'));
    expect(refusedLines.every((line) => line['status'] === 402)).toBe(true);
    expect({ spends: row.spends, refused: row.refused, refunds: row.refunds }).toEqual({
      spends: spentLines.length,
      refused: refusedLines.length,
      refunds: refundedLines.length,
    });
    const status = (await (await fetch(`${server.baseUrl}/rate_limit`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { credits: { balance: number } };
    expect(status.credits.balance).toBe(40 + row.refilled + row.adjusted - row.spent + row.refunded);
  });
});
