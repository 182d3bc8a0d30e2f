import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFilePlanStore, type FilePlanStore } from '../support/file-plan-store.js';
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
  let store: FilePlanStore;
  let server: FilePlanStore['server'];
  beforeAll(async () => {
    store = await startFilePlanStore(PLANS, KEY, 'forgiving');
    server = store.server;
  });
  afterAll(async () => {
    await server?.close(0, 0);
  });
  const get = (path: string, requestId: string): Promise<number> => store.get(path, requestId);

  it('admits 404s past the rule that gives them back, counts each refund by plan and rule in /metrics, and marks it in the access line', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < LIMIT + 2; n++) statuses.push(await get('/pets/999', `missing-${n}`));
    expect(statuses).toEqual(new Array(LIMIT + 2).fill(404));
    expect(await get('/pets', 'listed')).toBe(200);

    const samples = parsePrometheus(await (await fetch(`${server.adminUrl}/metrics`)).text());
    expect(samples.get('petstore_quota_refunds_total{plan="forgiving",rule="minute"}')).toBe(LIMIT + 2);
    expect(samples.get('petstore_quota_refunds_total{plan="forgiving",rule="day"}')).toBeUndefined();
    expect(samples.get('petstore_quota_refunds_lost_total{plan="forgiving",rule="minute"}')).toBeUndefined();

    const lines = await store.accessLines();
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
