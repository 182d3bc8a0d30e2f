import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { pathOf } from '../../src/adapters/http/pipeline/api-router.js';
import { createRequestContext } from '../../src/adapters/http/wire/request-context.js';
import { loadConfig } from '../../src/app/config/config.js';
import { createLogger } from '../../src/app/logging/logger.js';
import { composePetStore, type PetStoreApp } from '../../src/app/pet-store-app.js';
import type { CreditRule } from '../../src/domain/credits/credit-rule.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { keySubject } from '../../src/domain/quota/request-admission.js';
import { ManualClock } from '../support/manual-clock.js';

/*
 * A key's credits and the usage ledger through the admin API, end to end on the memory store:
 * the app composed as the server composes it, its admin key routes on a bare listener, the
 * ledger spent from as admission spends (the key's subject), the clock driven by the test.
 */

const TOKEN = randomBytes(32).toString('hex');
const RULE: CreditRule = { name: 'monthly', credits: 100, initial: 50, refill: 'month' };
const START = Date.UTC(2026, 10, 20, 12, 0, 0);

let app: PetStoreApp;
let server: Server;
let url: string;
let logText = '';
const clock = new ManualClock(START);

beforeAll(async () => {
  const config = loadConfig({ PETSTORE_STORE: 'memory', PETSTORE_ADMIN_PORT: '0', PETSTORE_ADMIN_TOKEN: TOKEN });
  if (!config.ok) throw new Error(config.error.join('\n'));
  const logs = new PassThrough();
  logs.on('data', (chunk: Buffer) => (logText += chunk.toString('utf8')));
  app = composePetStore(config.value, { clock, logger: createLogger('info', logs) });
  const api = await app.adminKeyApi();
  if (api === undefined) throw new Error('no admin key API');
  server = createServer((req, res) => {
    const answered = api(createRequestContext(req, res), req.method ?? 'GET', pathOf(req.url ?? '/'));
    if (answered === false) res.writeHead(404).end();
    else answered.catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await app.close();
});

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), text, json: (response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined) as Record<string, unknown> };
};

/** A key made by the API (plan pro), given a plan with credits when `credits`; its id and its requests' credit subject. */
const newKey = async (credits: boolean): Promise<{ id: string; subject: string }> => {
  const created = await call('POST', '/keys', { plan: 'pro' });
  expect(created.status).toBe(201);
  const { key, secret } = created.json as { key: { id: string }; secret: string };
  if (credits) expect(await (await app.keyAdmin()).updateKey(key.id, { plan: { ...STANDARD_PLANS.pro, credits: RULE } }, clock.now())).toHaveProperty('updated');
  return { id: key.id, subject: keySubject(digestApiKey(secret)) };
};

const logLines = (): Record<string, unknown>[] =>
  logText
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line['change'] === 'credits_changed');

describe("a key's credits on the admin API, on the memory store", () => {
  it('reads, sets and tops up a balance, refuses bad changes changing nothing, and logs each change', async () => {
    const { id, subject } = await newKey(true);
    expect(await call('GET', `/keys/${id}/credits`)).toMatchObject({
      status: 200,
      json: { key: { id }, rule: RULE, balance: 50, period: '2026-11-01T00:00:00.000Z', refillAt: '2026-12-01T00:00:00.000Z' },
    });
    // Spent under the subject admission spends from: the balance the API reads is that one.
    expect((await app.credits()).spend(subject, RULE, 8, clock.now())).toMatchObject({ granted: true, balance: 42 });
    expect(await call('POST', `/keys/${id}/credits`, { add: 10 })).toMatchObject({ status: 200, json: { before: 42, balance: 52 } });
    expect(await call('POST', `/keys/${id}/credits`, { add: -100 })).toMatchObject({ status: 200, json: { before: 52, balance: 0 } });
    expect(await call('POST', `/keys/${id}/credits`, { set: 500 })).toMatchObject({ status: 200, json: { before: 0, balance: 500 } });

    const refusals: [unknown, string][] = [
      [{ set: -1 }, 'set "-1": must be a whole number from 0 to 1000000000000'],
      [{ add: 1_000_000_000_001 }, 'add "1000000000001": must be a whole number from -1000000000000 to 1000000000000'],
      [{ set: 1, add: 1 }, 'set and add go one at a time: give one'],
      [{}, 'a change needs set N (the balance) or add N (units to add; negative takes some away)'],
      [{ add: '5' }, 'add must be a whole number.'],
      [{ add: 2.5 }, 'add must be a whole number.'],
    ];
    for (const [body, message] of refusals) expect(await call('POST', `/keys/${id}/credits`, body), JSON.stringify(body)).toMatchObject({ status: 400, json: { message } });
    expect(await call('POST', '/keys/key_0000000000000000/credits', { add: 1 })).toMatchObject({ status: 404, json: { message: expect.stringContaining('No key has the id') } });
    const { id: plain } = await newKey(false);
    for (const method of ['GET', 'POST']) {
      expect(await call(method, `/keys/${plain}/credits`, method === 'POST' ? { add: 1 } : undefined)).toMatchObject({
        status: 404,
        json: { message: expect.stringContaining(`The plan of ${plain} carries no credits`) },
      });
    }
    expect(await call('GET', `/keys/${id}/credits`)).toMatchObject({ json: { balance: 500 } });

    expect(logLines().map(({ keyId, rule, before, after, by, set, add }) => ({ keyId, rule, before, after, by, set, add }))).toEqual([
      { keyId: id, rule: 'monthly', before: 42, after: 52, by: 'admin_api', set: undefined, add: 10 },
      { keyId: id, rule: 'monthly', before: 52, after: 0, by: 'admin_api', set: undefined, add: -100 },
      { keyId: id, rule: 'monthly', before: 0, after: 500, by: 'admin_api', set: 500, add: undefined },
    ]);
  });

  it('exports the usage ledger by key id, in JSON and CSV, filtered by key and period, adding up to each balance', async () => {
    clock.set(Date.UTC(2027, 0, 10));
    const first = await newKey(true);
    const second = await newKey(true);
    const ledger = await app.credits();
    ledger.spend(first.subject, RULE, 30, clock.now());
    ledger.spend(first.subject, RULE, 30, clock.now()); // refused: 20 left
    ledger.refund(first.subject, RULE, 5, Date.UTC(2027, 0, 1), clock.now());
    expect((await call('POST', `/keys/${second.id}/credits`, { add: 7 })).status).toBe(200);
    clock.set(Date.UTC(2027, 1, 3));
    ledger.spend(first.subject, RULE, 1, clock.now());
    // The ledger enters a refill at the key's first spend or change of the period (a read writes nothing).
    ledger.spend(second.subject, RULE, 1, clock.now());
    // A subject no listed key has (its key gone) stays, by its subject.
    ledger.spend('key:gone', RULE, 2, clock.now());

    const all = await call('GET', '/keys/usage?from=2027-01');
    expect(all.status).toBe(200);
    const rows = all.json as unknown as Record<string, string | number>[];
    expect(rows.filter((row) => row['key'] === first.id)).toEqual([
      { key: first.id, period: '2027-01-01', spent: 30, spends: 1, refused: 1, refunded: 5, refunds: 1, refilled: 0, adjusted: 0 },
      { key: first.id, period: '2027-02-01', spent: 1, spends: 1, refused: 0, refunded: 0, refunds: 0, refilled: 75, adjusted: 0 },
    ]);
    expect(rows.filter((row) => row['key'] === 'key:gone')).toEqual([
      { key: 'key:gone', period: '2027-02-01', spent: 2, spends: 1, refused: 0, refunded: 0, refunds: 0, refilled: 0, adjusted: 0 },
    ]);
    // Reconciled: balance = initial + refilled + adjusted − spent + refunded, for each key.
    for (const { id } of [first, second]) {
      const own = rows.filter((row) => row['key'] === id);
      const sum = (column: string) => own.reduce((total, row) => total + Number(row[column]), 0);
      const { json } = await call('GET', `/keys/${id}/credits`);
      expect(json['balance'], id).toBe(50 + sum('refilled') + sum('adjusted') - sum('spent') + sum('refunded'));
    }

    const january = await call('GET', `/keys/usage?key=${second.id}&from=2027-01&to=2027-01`);
    expect(january.json).toEqual([{ key: second.id, period: '2027-01-01', spent: 0, spends: 0, refused: 0, refunded: 0, refunds: 0, refilled: 0, adjusted: 7 }]);
    const csv = await call('GET', `/keys/usage?key=${first.id}&format=csv`);
    expect([csv.status, csv.type]).toEqual([200, 'text/csv; charset=utf-8; header=present']);
    expect(csv.text).toBe(
      'key,period,spent,spends,refused,refunded,refunds,refilled,adjusted\r\n' +
        `${first.id},2027-01-01,30,1,1,5,1,0,0\r\n` +
        `${first.id},2027-02-01,1,1,0,0,0,75,0\r\n`,
    );

    expect(await call('GET', '/keys/usage?key=key_0000000000000000')).toMatchObject({ status: 404 });
    expect(await call('GET', '/keys/usage?key=nonsense')).toMatchObject({ status: 404 });
    expect(await call('GET', '/keys/usage?from=2027-02-30')).toMatchObject({ status: 400, json: { message: expect.stringContaining('from "2027-02-30"') } });
    expect(await call('GET', '/keys/usage?from=2027-03&to=2027-02')).toMatchObject({ status: 400, json: { message: 'from 2027-03 comes after to 2027-02' } });
    expect(await call('GET', '/keys/usage?format=xml')).toMatchObject({ status: 400, json: { message: 'format "xml": must be csv or json' } });
  });
});
