import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFilePlanStore, type FilePlanStore } from '../support/file-plan-store.js';
import { parsePrometheus } from '../support/prometheus-text.js';

const KEY = 'shadow-reporting-key';
const SEARCH_LIMIT = 3;
/** A minute rule for every request, and a search rule in shadow: what rolling a search limit out looks like. */
const PLANS = {
  plans: {
    watched: {
      rules: [
        { name: 'minute', limit: 100, window: '1m' },
        { name: 'search', limit: SEARCH_LIMIT, window: '1m', match: ['listPets'], mode: 'shadow' },
      ],
    },
  },
};

describe('shadow rules, reported', () => {
  let store: FilePlanStore;
  let server: FilePlanStore['server'];
  beforeAll(async () => {
    store = await startFilePlanStore(PLANS, KEY, 'watched');
    server = store.server;
  });
  afterAll(async () => {
    await server?.close(0, 0);
  });
  const get = (path: string, requestId: string): Promise<number> => store.get(path, requestId);

  it('admits every request past the shadow rule, counts each would-be refusal by plan and rule, and marks it in the access line', async () => {
    const listed: number[] = [];
    for (let n = 0; n < SEARCH_LIMIT + 2; n++) listed.push(await get('/pets', `list-${n}`));
    expect(listed).toEqual(new Array(SEARCH_LIMIT + 2).fill(200));
    // getPet does not match the search rule: no would-be refusal, however spent the rule is.
    expect(await get('/pets/1', 'get-1')).toBe(404);

    const samples = parsePrometheus(await (await fetch(`${server.adminUrl}/metrics`)).text());
    expect(samples.get('petstore_quota_shadow_refusals_total{plan="watched",rule="search"}')).toBe(2);
    expect(samples.get('petstore_quota_decisions_total{plan="watched",verdict="admitted"}')).toBe(SEARCH_LIMIT + 3);

    const lines = await store.accessLines();
    for (let n = 0; n < SEARCH_LIMIT; n++) expect(lines.get(`list-${n}`)).not.toHaveProperty('shadowed');
    expect(lines.get(`list-${SEARCH_LIMIT}`)).toMatchObject({ status: 200, plan: 'watched', verdict: 'admitted', shadowed: ['search'] });
    expect(lines.get(`list-${SEARCH_LIMIT + 1}`)).toMatchObject({ status: 200, shadowed: ['search'] });
    expect(lines.get('get-1')).toMatchObject({ route: '/pets/{petId}', verdict: 'admitted' });
    expect(lines.get('get-1')).not.toHaveProperty('shadowed');
  });

  it('GET /rate_limit lists the shadow rule with its mode, and leaves it out of RateLimit-Policy (it never refuses)', async () => {
    const answer = await fetch(`${server.baseUrl}/rate_limit`, { headers: { authorization: `Bearer ${KEY}` } });
    const body = (await answer.json()) as { rules: readonly Record<string, unknown>[] };
    expect(body.rules).toEqual([
      expect.objectContaining({ name: 'minute', mode: 'enforce' }),
      expect.objectContaining({ name: 'search', limit: SEARCH_LIMIT, remaining: 0, mode: 'shadow', match: ['listPets'] }),
    ]);
    expect(answer.headers.get('ratelimit-policy')).toBe('"rate_limit";q=10;w=60, "minute";q=100;w=60');
  });
});
