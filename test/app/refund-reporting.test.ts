import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logging/logger.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { parsePrometheus } from '../support/prometheus-text.js';

const KEY = 'refund-reporting-key';
const LIMIT = 3;
/** A minute rule giving back what a 404 spent, beside a day rule keeping everything. */
const PLANS = {
  plans: {
    forgiving: {
      rules: [
        { name: 'minute', limit: LIMIT, window: '1m', refund: ['404', '5xx'] },
        { name: 'day', limit: 1000, window: '1d' },
      ],
    },
  },
};

describe('refunds, reported', () => {
  let server: RunningPetStore;
  let logged = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });

  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'refund-plans-')), 'plans.json');
    writeFileSync(file, JSON.stringify(PLANS));
    server = await startPetStore(
      { PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_STORE: 'memory', PETSTORE_PLANS: file, PETSTORE_API_KEYS: `${KEY}:forgiving`, PETSTORE_ACCESS_LOG: 'on' },
      { logger: createLogger('info', out) },
    );
  });
  afterAll(async () => {
    await server?.close(0, 0);
  });

  const get = async (path: string, requestId: string): Promise<number> => {
    const answer = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${KEY}`, 'x-request-id': requestId } });
    await answer.arrayBuffer();
    return answer.status;
  };

  it('admits 404s past the rule that gives them back, counts each refund by plan and rule in /metrics, and marks it in the access line', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < LIMIT + 2; n++) statuses.push(await get('/pets/999', `missing-${n}`));
    expect(statuses).toEqual(new Array(LIMIT + 2).fill(404));
    expect(await get('/pets', 'listed')).toBe(200);

    const samples = parsePrometheus(await (await fetch(`${server.adminUrl}/metrics`)).text());
    expect(samples.get('petstore_quota_refunds_total{plan="forgiving",rule="minute"}')).toBe(LIMIT + 2);
    expect(samples.get('petstore_quota_refunds_total{plan="forgiving",rule="day"}')).toBeUndefined();
    expect(samples.get('petstore_quota_refunds_lost_total{plan="forgiving",rule="minute"}')).toBeUndefined();

    await server.flushLogs();
    const lines = new Map(
      logged
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .filter((line) => line['msg'] === 'request')
        .map((line) => [line['requestId'], line]),
    );
    for (let n = 0; n < LIMIT + 2; n++) expect(lines.get(`missing-${n}`)).toMatchObject({ status: 404, plan: 'forgiving', verdict: 'admitted', refunded: ['minute'] });
    expect(lines.get('listed')).toMatchObject({ status: 200, verdict: 'admitted' });
    expect(lines.get('listed')).not.toHaveProperty('refunded');
  });

  it('GET /rate_limit lists each rule with its refund, and what the 404s gave back is there: only the 200 is kept under the minute rule', async () => {
    const answer = await fetch(`${server.baseUrl}/rate_limit`, { headers: { authorization: `Bearer ${KEY}` } });
    const body = (await answer.json()) as { rules: readonly Record<string, unknown>[] };
    expect(body.rules).toEqual([
      expect.objectContaining({ name: 'minute', remaining: LIMIT - 1, mode: 'enforce', refund: ['404', '5xx'] }),
      expect.objectContaining({ name: 'day', remaining: 1000 - LIMIT - 3 }),
    ]);
    expect(body.rules[1]).not.toHaveProperty('refund');
  });
});
