import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { PostgresCreditLedger } from '../../src/adapters/postgres/postgres-credit-ledger.js';
import { createPostgresDatabase } from '../../src/adapters/postgres/postgres-database.js';
import type { CreditRule } from '../../src/domain/credits/credit-rule.js';
import { keySubject } from '../../src/domain/quota/request-admission.js';
import { startCli, stopAll, type CliProcess } from '../support/cli-process.js';
import { createTestDatabase, runPsql, type TestDatabase } from '../support/test-postgres.js';
import { acquireTestRedis, type TestRedis } from '../support/test-redis.js';

const KEY = 'credits-crash-key-1';
const INITIAL = 600;
const TOP_UP = 40;
const INSTANCES = 3;
const MONTHLY: CreditRule = { name: 'monthly', credits: INITIAL, refill: 'month' };
/** Credits, and a minute no test reaches: every refusal here is the credits'. */
const PLANS = { plans: { metered: { rules: [{ name: 'minute', limit: 1_000_000, window: '1m' }, MONTHLY] } } };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What a client saw of its requests: answered 200 (an acknowledged spend), 402, or no answer (its instance was killed). */
interface Seen {
  acknowledged: number;
  refused: number;
  unanswered: number;
}

/*
 * Three server processes spend one key's credits on one PostgreSQL database; two are killed
 * (SIGKILL: no drain, no goodbye) while their requests are in flight, and an operator tops the
 * key up meanwhile. Afterwards the ledger adds up to the unit: balance = initial + refills +
 * top-ups − spends recorded, and the spends recorded are every acknowledged one plus at most the
 * requests whose answers died with their instance: a spend is committed with its usage row in
 * one transaction before its answer is written, so none is lost and none is counted twice.
 */
describe('credits over three instances on PostgreSQL, two killed while spending', () => {
  let database: TestDatabase;
  let redis: TestRedis;
  let plansDir: string;
  const servers: CliProcess[] = [];
  let urls: string[] = [];

  beforeAll(async () => {
    [database, redis] = await Promise.all([createTestDatabase(), acquireTestRedis()]);
    plansDir = mkdtempSync(join(tmpdir(), 'petstore-credits-crash-'));
    writeFileSync(join(plansDir, 'plans.json'), JSON.stringify(PLANS));
    for (let i = 0; i < INSTANCES; i++) {
      servers.push(
        startCli({
          PORT: '0',
          PETSTORE_ENV: 'staging',
          PETSTORE_STORE: 'postgres',
          DATABASE_URL: database.url,
          PETSTORE_PLANS: join(plansDir, 'plans.json'),
          PETSTORE_API_KEYS: `${KEY}:metered`,
          REDIS_URL: redis.url,
          PETSTORE_REDIS_PREFIX: redis.prefix,
          PETSTORE_ACCESS_LOG: 'off',
          PETSTORE_PG_TIMEOUT_MS: '5000',
        }),
      );
    }
    urls = await Promise.all(servers.map(async (server) => (await server.waitFor(/listening on (\S+\/v1)/, 20_000))[1] ?? ''));
  });
  afterAll(async () => {
    await stopAll(servers);
    await redis?.cleanup();
    await database?.drop();
    rmSync(plansDir, { recursive: true, force: true });
  });

  /** Requests to one instance, 8 at a time, until its credits refuse or it stops answering (then it is not asked again). */
  const spendOn = async (url: string, seen: Seen): Promise<void> => {
    let done = false;
    const worker = async (): Promise<void> => {
      while (!done) {
        try {
          const response = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
          await response.arrayBuffer();
          if (response.status === 200) seen.acknowledged++;
          else if (response.status === 402) {
            seen.refused++;
            done = true;
          } else throw new Error(`unexpected ${response.status}`);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith('unexpected')) throw error;
          seen.unanswered++;
          done = true;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  };

  it('keeps balance = initial + refills + top-ups − recorded spends, to the unit, with every acknowledged spend recorded', async () => {
    const seen: Seen = { acknowledged: 0, refused: 0, unanswered: 0 };
    const spending = Promise.all(urls.map((url) => spendOn(url, seen)));
    await sleep(150);
    servers[0]!.kill('SIGKILL');
    const subject = keySubject(digestApiKey(KEY));
    // An operator's top-up mid-run, through the ledger as `petstore keys credits --add` makes it.
    const operator = createPostgresDatabase({ url: database.url, max: 1, timeoutMs: 10_000 });
    try {
      const { before, after } = await new PostgresCreditLedger(operator).change(subject, MONTHLY, { add: TOP_UP }, Date.now());
      expect(after.balance).toBe(before + TOP_UP);
    } finally {
      await operator.end();
    }
    await sleep(50);
    servers[1]!.kill('SIGKILL');
    await spending;
    const [balance, spent, spends, refilled, adjusted, refunded] = (
      await runPsql(
        database.url,
        `SELECT b.balance, sum(u.spent), sum(u.spends), sum(u.refilled), sum(u.adjusted), sum(u.refunded)
           FROM credit_balances b JOIN credit_usage u USING (subject) WHERE b.subject = '${subject}' GROUP BY b.balance`,
      )
    )
      .split('|')
      .map(Number) as [number, number, number, number, number, number];
    expect(balance).toBe(INITIAL + refilled + adjusted - spent + refunded);
    expect(spends).toBe(spent);
    expect(spends).toBeGreaterThanOrEqual(seen.acknowledged);
    expect(spends).toBeLessThanOrEqual(seen.acknowledged + seen.unanswered);
    // The survivor spent the balance to nothing: every credit went to some request.
    expect(balance).toBe(0);
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.unanswered).toBeGreaterThan(0);
    expect(adjusted).toBe(TOP_UP);
  });
});
