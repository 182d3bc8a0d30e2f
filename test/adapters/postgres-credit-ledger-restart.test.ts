import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/adapters/postgres/migrate.js';
import { readMigrations } from '../../src/adapters/postgres/migration-files.js';
import { PostgresCreditLedger } from '../../src/adapters/postgres/postgres-credit-ledger.js';
import { createPostgresDatabase, type PostgresDatabase } from '../../src/adapters/postgres/postgres-database.js';
import type { CreditRule } from '../../src/domain/credits/credit-rule.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import type { CreditUsage } from '../../src/ports/credit-ledger.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.js';
import { ledgerBalance } from '../../src/testing/credit-ledger-contract.js';

/*
 * A crash of PostgreSQL under the ledger: on a server of its own (never the shared one), stopped
 * as in a crash (pg_ctl -m immediate, fsync on) and started again on the same data.
 */

const NOW = Date.UTC(2026, 0, 31, 23);
const RULE: CreditRule = { name: 'monthly', credits: 1_000, refill: 'month' };
const LOAD_RULE: CreditRule = { name: 'one-off', credits: 1_000_000 };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const total = (rows: readonly CreditUsage[], field: 'spent' | 'spends' | 'refused' | 'adjusted'): number => rows.reduce((sum, row) => sum + row[field], 0);

describe('PostgresCreditLedger through a crash of PostgreSQL', () => {
  let server: ThrowawayPostgres;
  let db: PostgresDatabase;
  beforeAll(async () => {
    server = await startThrowawayPostgres();
    // Deadlines above a fresh cluster's first fsynced commits; the outage still fails calls well within the test.
    db = createPostgresDatabase({ url: server.url, max: 4, timeoutMs: 2_000 });
    await migrate(db, readMigrations());
  });
  afterAll(async () => {
    await db?.end();
    await server?.destroy();
  });

  /**
   * postgres.js 3.4.9 may write a batched chunk to a connection the crash already closed, from a
   * setImmediate where no caller can catch it (porsager/postgres#1208, #1154; unfixed upstream):
   * that one TypeError is counted here, not let through, so this test stays about the ledger.
   * Anything else uncaught still fails the run.
   */
  let writesToClosedConnections = 0;
  // The runner's own listeners, handed every other error: only that one is kept from them.
  let runnerListeners: ((error: Error, origin: NodeJS.UncaughtExceptionOrigin) => void)[] = [];
  const swallowClosedConnectionWrite = (error: Error, origin: NodeJS.UncaughtExceptionOrigin): void => {
    if (error instanceof TypeError && /reading 'write'/.test(error.message) && /postgres\/src\/connection\.js/.test(error.stack ?? '')) {
      writesToClosedConnections++;
      return;
    }
    for (const listener of runnerListeners) listener(error, origin);
  };
  beforeAll(() => {
    runnerListeners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', swallowClosedConnectionWrite);
  });
  afterAll(() => {
    process.removeListener('uncaughtException', swallowClosedConnectionWrite);
    for (const listener of runnerListeners) process.on('uncaughtException', listener);
  });

  it('keeps every acknowledged spend and top-up, and of calls the crash cut, at most what they asked', async () => {
    const ledger = new PostgresCreditLedger(db);
    // Acknowledged before the crash: what each answered is what must be there after it.
    const acknowledged = new Map<string, { balance: number; spent: number; spends: number; refused: number; adjusted: number }>();
    await Promise.all(
      Array.from({ length: 6 }, async (_, s) => {
        const subject = `quiet:${s}`;
        const kept = { balance: RULE.credits, spent: 0, spends: 0, refused: 0, adjusted: 0 };
        for (let n = 0; n < 12; n++) {
          if (n % 5 === 4) {
            const { before, after } = await ledger.change(subject, RULE, { add: 50 * (s + 1) }, NOW + n);
            expect(before).toBe(kept.balance);
            kept.adjusted += after.balance - before;
            kept.balance = after.balance;
          } else {
            const units = 37 * (n + 1) + s;
            const answer = await ledger.spend(subject, RULE, units, NOW + n);
            if (answer.granted) Object.assign(kept, { spent: kept.spent + units, spends: kept.spends + 1 });
            else kept.refused++;
            kept.balance = answer.balance;
          }
        }
        acknowledged.set(subject, kept);
      }),
    );

    // Load on subjects of its own, cut by the crash: each call answered, or refused as unavailable.
    const load = Array.from({ length: 4 }, (_, w) => ({ subject: `load:${w}`, granted: 0, refused: 0, failed: 0, afterRestart: 0 }));
    let stopAt = Number.POSITIVE_INFINITY;
    let restarted = false;
    const workers = load.map(async (worker) => {
      while (performance.now() < stopAt) {
        try {
          const answer = await ledger.spend(worker.subject, LOAD_RULE, 3, NOW);
          if (answer.granted) worker.granted++;
          else worker.refused++;
          if (restarted) worker.afterRestart++;
        } catch (error) {
          if (!(error instanceof StoreUnavailableError)) throw error;
          worker.failed++;
          await sleep(20);
        }
      }
    });
    await sleep(500);
    await server.stopImmediate();
    await sleep(1_000);
    await server.start();
    restarted = true;
    stopAt = performance.now() + 1_000;
    await Promise.all(workers);

    // Read through a pool opened after the restart, as an instance started then would.
    const after = createPostgresDatabase({ url: server.url, max: 2, timeoutMs: 2_000 });
    try {
      const reader = new PostgresCreditLedger(after);
      for (const [subject, kept] of acknowledged) {
        expect(await reader.standing(subject, RULE, NOW + 100)).toMatchObject({ balance: kept.balance });
        const rows = await reader.usage({ subject });
        const { spent, spends, refused, adjusted } = kept;
        expect(rows).toEqual([{ subject, period: Date.UTC(2026, 0, 1), spent, spends, refused, refunded: 0, refunds: 0, refilled: 0, adjusted }]);
      }
      const summary = JSON.stringify({ load, writesToClosedConnections });
      // The pool answers again after the restart (a connection the driver's bug left behind may not: see above).
      expect(load.reduce((sum, worker) => sum + worker.afterRestart, 0), summary).toBeGreaterThan(0);
      for (const worker of load) {
        expect(worker.failed, summary).toBeGreaterThan(0);
        const rows = await reader.usage({ subject: worker.subject });
        // A call cut by the crash may have committed before its answer was lost, never more than once.
        expect(total(rows, 'spends'), summary).toBeGreaterThanOrEqual(worker.granted);
        expect(total(rows, 'spends'), summary).toBeLessThanOrEqual(worker.granted + worker.failed);
        expect(total(rows, 'spent')).toBe(3 * total(rows, 'spends'));
        expect((await reader.standing(worker.subject, LOAD_RULE, NOW)).balance).toBe(ledgerBalance(LOAD_RULE, rows));
      }
    } finally {
      await after.end();
    }
  });
});
