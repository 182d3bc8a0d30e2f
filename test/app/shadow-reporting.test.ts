import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logging/logger.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
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
  let server: RunningPetStore;
  let logged = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });

  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'shadow-plans-')), 'plans.json');
    writeFileSync(file, JSON.stringify(PLANS));
    server = await startPetStore(
      {
        PETSTORE_ENV: 'test',
        PORT: '0',
        PETSTORE_ADMIN_PORT: '0',
        PETSTORE_STORE: 'memory',
        PETSTORE_PLANS: file,
        PETSTORE_API_KEYS: `${KEY}:watched`,
        PETSTORE_ACCESS_LOG: 'on',
      },
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

  it('admits every request past the shadow rule, counts each would-be refusal by plan and rule, and marks it in the access line', async () => {
    const listed: number[] = [];
    for (let n = 0; n < SEARCH_LIMIT + 2; n++) listed.push(await get('/pets', `list-${n}`));
    expect(listed).toEqual(new Array(SEARCH_LIMIT + 2).fill(200));
    // getPet does not match the search rule: no would-be refusal, however spent the rule is.
    expect(await get('/pets/1', 'get-1')).toBe(404);

    const samples = parsePrometheus(await (await fetch(`${server.adminUrl}/metrics`)).text());
    expect(samples.get('petstore_quota_shadow_refusals_total{plan="watched",rule="search"}')).toBe(2);
    expect(samples.get('petstore_quota_decisions_total{plan="watched",verdict="admitted"}')).toBe(SEARCH_LIMIT + 3);

    await server.flushLogs();
    const lines = new Map(
      logged
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .filter((line) => line['msg'] === 'request')
        .map((line) => [line['requestId'], line]),
    );
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
