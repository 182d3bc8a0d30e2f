import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';

/*
 * GET /keys of the admin API pages and filters as the public API's lists do: `limit` (1 to 100,
 * default 100), the next page in a `Link: <...>; rel="next"` header with an opaque `cursor`, and
 * `plan` and `status` (active, expired, revoked) narrowing what is listed.
 */

const TOKEN = randomBytes(32).toString('hex');

interface Listed {
  readonly status: number;
  readonly ids: readonly string[];
  readonly next: string | undefined;
  readonly code: string | undefined;
}

describe('GET /keys of the admin API', () => {
  let server: RunningPetStore;
  const created: { id: string; plan: string }[] = [];
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${server.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const list = async (path: string): Promise<Listed> => {
    const response = await call('GET', path);
    const json = (await response.json()) as { keys?: { key: { id: string } }[]; code?: string };
    const next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
    return { status: response.status, ids: (json.keys ?? []).map(({ key }) => key.id), next, code: json.code };
  };

  beforeAll(async () => {
    server = await startPetStore({ PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_ADMIN_TOKEN: TOKEN });
    for (const plan of ['free', 'pro', 'pro', 'business', 'pro']) {
      const json = (await (await call('POST', '/keys', { plan })).json()) as { key: { id: string } };
      created.push({ id: json.key.id, plan });
    }
    expect((await call('POST', `/keys/${created[1]?.id}/revoke`)).status).toBe(200);
  });
  afterAll(async () => {
    await server?.close(0, 0);
  });

  it('pages oldest first, the next page in a Link header, until a page without one', async () => {
    const first = await list('/keys?limit=2');
    expect(first).toMatchObject({ status: 200, ids: created.slice(0, 2).map(({ id }) => id) });
    expect(first.next).toMatch(/^\/keys\?limit=2&cursor=[^&]+$/);
    const second = await list(first.next ?? '');
    expect(second.ids).toEqual(created.slice(2, 4).map(({ id }) => id));
    const third = await list(second.next ?? '');
    expect(third).toMatchObject({ ids: [created[4]?.id], next: undefined });
    expect(await list('/keys')).toMatchObject({ ids: created.map(({ id }) => id), next: undefined });
  });

  it('filters by plan and status, the filters kept in the next page link', async () => {
    const pro = created.filter(({ plan }) => plan === 'pro').map(({ id }) => id);
    expect((await list('/keys?plan=pro')).ids).toEqual(pro);
    expect((await list('/keys?status=revoked')).ids).toEqual([created[1]?.id]);
    expect((await list('/keys?plan=pro&status=active')).ids).toEqual(pro.filter((id) => id !== created[1]?.id));
    const page = await list('/keys?plan=pro&limit=1');
    expect(page.ids).toEqual([pro[0]]);
    expect(page.next).toMatch(/^\/keys\?limit=1&plan=pro&cursor=/);
    expect((await list(page.next ?? '')).ids).toEqual([pro[1]]);
    expect((await list('/keys?plan=business&status=expired')).ids).toEqual([]);
  });

  it('refuses a limit out of range, an unknown status or plan, and a cursor it did not make: 400 invalid_request', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=two', 'status=banned', 'plan=gold', 'cursor=nonsense']) {
      expect(await list(`/keys?${query}`), query).toMatchObject({ status: 400, code: 'invalid_request' });
    }
  });
});
