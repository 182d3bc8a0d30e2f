import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PostgresCreditLedger } from '../../src/adapters/postgres/postgres-credit-ledger.js';
import { createPostgresDatabase, type PostgresDatabase } from '../../src/adapters/postgres/postgres-database.js';
import { loadConfig } from '../../src/app/config/config.js';
import { buildContainer } from '../../src/app/container/build-container.js';
import { TOKENS } from '../../src/app/container/tokens.js';
import type { CreditRule } from '../../src/domain/credits/credit-rule.js';
import type { CreditSpend, CreditUsage } from '../../src/ports/credit-ledger.js';
import { describeCreditLedgerContract } from '../contracts/credit-ledger-contract.js';
import { runs } from '../support/property-runs.js';
import { usePostgresSchemas } from './postgres-stores-fixture.js';
import { ledgerBalance } from '../../src/testing/credit-ledger-contract.js';

const schemas = usePostgresSchemas();

describeCreditLedgerContract('postgres', async () => {
  const { db, drop } = await schemas.fresh();
  return { ledger: new PostgresCreditLedger(db), cleanup: drop };
});

const START = Date.UTC(2026, 0, 31, 23);
const INSTANCES = 3;


/** Instances of the service: a pool each on the fixture's schema, as PETSTORE_STORE=postgres opens one per process. */
const instancesOn = (schema: string): PostgresDatabase[] =>
  Array.from({ length: INSTANCES }, () => createPostgresDatabase({ url: schemas.url, max: 4, timeoutMs: 10_000, searchPath: schema }));

describe('PostgresCreditLedger across instances', () => {
  it('grants concurrent spends from several instances exactly as one balance taking them in turn would, its usage adding up to it', async () => {
    const { schema, drop } = await schemas.fresh();
    const pools = instancesOn(schema);
    try {
      const ledgers = pools.map((db) => new PostgresCreditLedger(db));
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 60 }),
          fc.array(fc.record({ instance: fc.nat(INSTANCES - 1), units: fc.integer({ min: 1, max: 9 }) }), { minLength: 1, maxLength: 40 }),
          async (credits, spends) => {
            const rule: CreditRule = { name: 'one-off', credits };
            const subject = `concurrent:${randomUUID()}`;
            const answers = await Promise.all(spends.map(({ instance, units }) => ledgers[instance]!.spend(subject, rule, units, START)));
            const taken = spends.map(({ units }, i) => ({ units, answer: answers[i]! }));
            const granted = taken.filter(({ answer }) => answer.granted);
            const refused = taken.filter(({ answer }) => !answer.granted);
            // In turn: each grant leaves the balance the one before it left less its units, from the credits down.
            const chain = [...granted].sort((a, b) => b.answer.balance - a.answer.balance);
            let balance = credits;
            for (const { units, answer } of chain) {
              expect(answer.balance).toBe(balance - units);
              balance = answer.balance;
            }
            // A refusal saw a balance some grant left (or the credits), too small for its units.
            const seen = new Set([credits, ...chain.map(({ answer }) => answer.balance)]);
            for (const { units, answer } of refused) {
              expect(seen.has(answer.balance), `refused at ${answer.balance}`).toBe(true);
              expect(answer.balance).toBeLessThan(units);
            }
            const final = await ledgers[0]!.standing(subject, rule, START);
            expect(final.balance).toBe(balance);
            const rows = await ledgers[1]!.usage({ subject });
            expect(rows).toEqual([
              {
                subject,
                period: 0,
                spent: credits - balance,
                spends: granted.length,
                refused: refused.length,
                refunded: 0,
                refunds: 0,
                refilled: 0,
                adjusted: 0,
              } satisfies CreditUsage,
            ]);
            expect(ledgerBalance(rule, rows)).toBe(balance);
          },
        ),
        { numRuns: runs(20) },
      );
    } finally {
      await Promise.all(pools.map((db) => db.end()));
      await drop();
    }
  });

  it('refills once across a period boundary crossed by concurrent spends, refunds and top-ups from several instances', async () => {
    const { schema, drop } = await schemas.fresh();
    const pools = instancesOn(schema);
    try {
      const ledgers = pools.map((db) => new PostgresCreditLedger(db));
      const rule: CreditRule = { name: 'monthly', credits: 100, refill: 'month' };
      const february = Date.UTC(2026, 1, 1);
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              instance: fc.nat(INSTANCES - 1),
              units: fc.integer({ min: 1, max: 30 }),
              kind: fc.constantFrom('spend', 'spend', 'spend', 'top-up'),
              late: fc.boolean(),
            }),
            { minLength: 1, maxLength: 30 },
          ),
          async (steps) => {
            const subject = `boundary:${randomUUID()}`;
            await ledgers[0]!.spend(subject, rule, 60, START);
            const answers = await Promise.all(
              steps.map(async ({ instance, units, kind, late }): Promise<CreditSpend | undefined> => {
                const ledger = ledgers[instance]!;
                const now = late ? february + units : START + units;
                if (kind === 'top-up') {
                  await ledger.change(subject, rule, { add: units }, now);
                  return undefined;
                }
                const answer = await ledger.spend(subject, rule, units, now);
                // Half the grants come back, as an idempotent replay's would.
                if (answer.granted && units % 2 === 0) await ledger.refund(subject, rule, units, answer.period, now + 1);
                return answer;
              }),
            );
            // A top-up of nothing in February: the refill written (a read would only reckon it), the balance as it is.
            const { after } = await ledgers[1]!.change(subject, rule, { add: 0 }, february + 100);
            expect(await ledgers[0]!.standing(subject, rule, february + 100)).toEqual(after);
            const rows = await ledgers[2]!.usage({ subject });
            expect(ledgerBalance(rule, rows)).toBe(after.balance);
            expect(rows.reduce((sum, row) => sum + row.spends, 0)).toBe(1 + answers.filter((answer) => answer?.granted === true).length);
            expect(rows.reduce((sum, row) => sum + row.refused, 0)).toBe(answers.filter((answer) => answer?.granted === false).length);
            // One refill at most, in February's row; never in January's.
            expect(rows.find((row) => row.period !== february)?.refilled ?? 0).toBe(0);
            expect(rows.every((row) => [Date.UTC(2026, 0, 1), february].includes(row.period))).toBe(true);
          },
        ),
        { numRuns: runs(20) },
      );
    } finally {
      await Promise.all(pools.map((db) => db.end()));
      await drop();
    }
  });
});

describe('PETSTORE_STORE=postgres', () => {
  it("binds the credit ledger to PostgreSQL: the file's database migrated, a spend kept there", async () => {
    const loaded = loadConfig({ PETSTORE_STORE: 'postgres', DATABASE_URL: schemas.url, PETSTORE_LOG_LEVEL: 'silent' });
    if (!loaded.ok) throw new Error(loaded.error.join('; '));
    const container = buildContainer(loaded.value);
    try {
      const ledger = await container.getAsync(TOKENS.creditLedger);
      expect(ledger).toBeInstanceOf(PostgresCreditLedger);
      const rule: CreditRule = { name: 'one-off', credits: 5 };
      expect(await ledger.spend('container', rule, 2, START)).toMatchObject({ granted: true, balance: 3 });
      const other = createPostgresDatabase({ url: schemas.url, max: 1, timeoutMs: 10_000 });
      try {
        expect((await other.query('SELECT balance FROM credit_balances WHERE subject = $1', ['container'])).rows).toEqual([{ balance: '3' }]);
      } finally {
        await other.end();
      }
    } finally {
      await container.unbindAllAsync();
    }
  });
});
