import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisCreditLedger } from '../../src/adapters/redis/redis-credit-ledger.js';
import { withDefaults } from '../../src/app/config/config.js';
import { buildContainer } from '../../src/app/container/build-container.js';
import { TOKENS } from '../../src/app/container/tokens.js';
import { afterChange, refilled, type CreditBalance } from '../../src/domain/credits/credit-balance.js';
import { MAX_CREDITS, type CreditRule } from '../../src/domain/credits/credit-rule.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import type { CreditSpend } from '../../src/ports/credit-ledger.js';
import { describeCreditLedgerContract } from '../contracts/credit-ledger-contract.js';
import { runs } from '../support/property-runs.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';
import { useTestRedis } from '../support/use-test-redis.js';
import { ledgerBalance } from '../../src/testing/credit-ledger-contract.js';

const shared = useTestRedis();

describeCreditLedgerContract('redis', async () => ({
  // The contract gives every test subjects of its own; the file's cleanup deletes the keys.
  ledger: new RedisCreditLedger(shared.redis, shared.freshPrefix()),
  cleanup: async () => {},
}));

const MONTHLY: CreditRule = { name: 'monthly', credits: 100, refill: 'month' };
const JANUARY = Date.UTC(2026, 0, 1);
const FEBRUARY = Date.UTC(2026, 1, 1);

/** Every key under `prefix`, sorted. */
const keysUnder = async (redis: Redis, prefix: string): Promise<string[]> => (await redis.keys(`${prefix}*`)).sort();


describe('RedisCreditLedger', () => {
  it("keeps a subject's balance, usage rows and periods in three keys of one hash tag, and its name in the index; a read writes nothing", async () => {
    const prefix = shared.freshPrefix();
    const ledger = new RedisCreditLedger(shared.redis, prefix);
    await ledger.standing('key:quiet', MONTHLY, JANUARY);
    expect(await keysUnder(shared.redis, prefix)).toEqual([]);
    await ledger.spend('key:a', MONTHLY, 5, JANUARY);
    await ledger.refund('key:a', MONTHLY, 5, JANUARY, JANUARY + 1);
    await ledger.change('key:a', MONTHLY, { add: 1 }, FEBRUARY);
    expect(await keysUnder(shared.redis, prefix)).toEqual([`${prefix}credit-subjects`, `${prefix}{k:key:a}`, `${prefix}{k:key:a}:periods`, `${prefix}{k:key:a}:usage`]);
    expect(await shared.redis.smembers(`${prefix}credit-subjects`)).toEqual(['key:a']);
  });

  it('holds balances and periods up to MAX_CREDITS and beyond exactly, as integers', async () => {
    const ledger = new RedisCreditLedger(shared.redis, shared.freshPrefix());
    const rule: CreditRule = { name: 'big', credits: MAX_CREDITS, refill: 'month' };
    expect(await ledger.change('key:a', rule, { add: MAX_CREDITS }, JANUARY)).toMatchObject({ before: MAX_CREDITS, after: { balance: 2 * MAX_CREDITS } });
    await ledger.change('key:a', rule, { add: MAX_CREDITS - 1 }, JANUARY);
    expect(await ledger.spend('key:a', rule, 1, JANUARY)).toEqual({ granted: true, balance: 3 * MAX_CREDITS - 2, period: JANUARY, refillAt: FEBRUARY });
    expect(await ledger.spend('key:a', rule, MAX_CREDITS, FEBRUARY + 1)).toMatchObject({ granted: true, balance: 2 * MAX_CREDITS - 2, period: FEBRUARY });
    expect(await ledger.usage({ subject: 'key:a' })).toEqual([
      { subject: 'key:a', period: JANUARY, spent: 1, spends: 1, refused: 0, refunded: 0, refunds: 0, refilled: 0, adjusted: 2 * MAX_CREDITS - 1 },
      { subject: 'key:a', period: FEBRUARY, spent: MAX_CREDITS, spends: 1, refused: 0, refunded: 0, refunds: 0, refilled: 0, adjusted: 0 },
    ]);
  });

  it('never refills backwards: an instance whose clock lags one that refilled spends from the new period, entered in its row', async () => {
    const ledger = new RedisCreditLedger(shared.redis, shared.freshPrefix());
    await ledger.spend('key:a', MONTHLY, 60, JANUARY);
    expect(await ledger.spend('key:a', MONTHLY, 10, FEBRUARY)).toMatchObject({ balance: 90, period: FEBRUARY });
    expect(await ledger.spend('key:a', MONTHLY, 10, FEBRUARY - 1)).toEqual({ granted: true, balance: 80, period: FEBRUARY, refillAt: Date.UTC(2026, 2, 1) });
    expect(await ledger.standing('key:a', MONTHLY, FEBRUARY - 1)).toMatchObject({ balance: 80, period: FEBRUARY });
    const rows = await ledger.usage({ subject: 'key:a' });
    expect(rows.map(({ period, spent, refilled: added }) => [period, spent, added])).toEqual([
      [JANUARY, 60, 0],
      [FEBRUARY, 20, 60],
    ]);
    expect(await ledger.usage({ subject: 'key:a', from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY })).toEqual(rows);
    expect(await ledger.usage({ subject: 'key:a', from: JANUARY + 1, to: FEBRUARY + 1 })).toEqual(rows.slice(1));
  });

  it('reckons each refund after a refill against the balance the refill started from, with the refunds before it', async () => {
    const ledger = new RedisCreditLedger(shared.redis, shared.freshPrefix());
    await ledger.change('key:a', MONTHLY, { set: 150 }, JANUARY);
    await ledger.spend('key:a', MONTHLY, 60, JANUARY);
    await ledger.spend('key:a', MONTHLY, 30, JANUARY);
    // February refills 60 to 100; had neither request spent, 150 would have stayed 150.
    await ledger.refund('key:a', MONTHLY, 60, JANUARY, FEBRUARY);
    expect(await ledger.standing('key:a', MONTHLY, FEBRUARY)).toMatchObject({ balance: 120 });
    await ledger.refund('key:a', MONTHLY, 30, JANUARY, FEBRUARY);
    expect(await ledger.standing('key:a', MONTHLY, FEBRUARY)).toMatchObject({ balance: 150 });
    expect(await ledger.usage({ subject: 'key:a', from: FEBRUARY })).toMatchObject([{ refilled: 40, refunded: 50, refunds: 2 }]);
  });

  it('checks units and changes before any I/O, and rejects with StoreUnavailableError when Redis cannot answer', async () => {
    const gone = await createRedisClient({ url: shared.url, commandTimeoutMs: 5_000 });
    gone.disconnect();
    const ledger = new RedisCreditLedger(gone, shared.freshPrefix());
    await expect(ledger.spend('key:a', MONTHLY, 0, JANUARY)).rejects.toThrow(RangeError);
    await expect(ledger.change('key:a', MONTHLY, { add: MAX_CREDITS + 1 }, JANUARY)).rejects.toThrow(RangeError);
    await expect(ledger.spend('key:a', MONTHLY, 1, JANUARY)).rejects.toThrow(StoreUnavailableError);
    await expect(ledger.standing('key:a', MONTHLY, JANUARY)).rejects.toThrow(StoreUnavailableError);
    await expect(ledger.usage({})).rejects.toThrow(StoreUnavailableError);
  });
});

describe('the redis store', () => {
  it('binds one RedisCreditLedger on the shared client, under the configured prefix', async () => {
    const prefix = shared.freshPrefix();
    const container = buildContainer(withDefaults({ environment: 'test', store: 'redis', redisUrl: shared.url, redisPrefix: prefix }));
    try {
      const ledger = await container.getAsync(TOKENS.creditLedger);
      expect(ledger).toBeInstanceOf(RedisCreditLedger);
      expect(await container.getAsync(TOKENS.creditLedger)).toBe(ledger);
      await ledger.spend('key:a', MONTHLY, 1, JANUARY);
      expect(await keysUnder(shared.redis, prefix)).toContain(`${prefix}{k:key:a}`);
    } finally {
      await container.unbindAllAsync();
    }
  });
});

/** Refilled every second from the epoch: phases a second apart each open a period. */
const PERIOD_MS = 1_000;
const INSTANCES = 4;

describe('RedisCreditLedger over several instances', () => {
  let clients: Redis[];
  beforeAll(async () => {
    clients = await Promise.all(Array.from({ length: INSTANCES }, () => createRedisClient({ url: shared.url, commandTimeoutMs: 5_000 })));
  });
  afterAll(() => {
    for (const client of clients) client.disconnect();
  });

  interface Phase {
    /** Periods skipped before the phase (0: the same period as the last). */
    readonly advance: number;
    /** Top-ups, each from an instance, made before the phase's spends. */
    readonly topUps: readonly { readonly instance: number; readonly add: number }[];
    /** Spends sent at once, each from an instance. */
    readonly spends: readonly { readonly instance: number; readonly units: number }[];
  }
  const instance = fc.nat(INSTANCES - 1);
  const phase: fc.Arbitrary<Phase> = fc.record({
    advance: fc.nat(2),
    topUps: fc.array(fc.record({ instance, add: fc.integer({ min: 1, max: 30 }) }), { maxLength: 2 }),
    spends: fc.array(fc.record({ instance, units: fc.integer({ min: 1, max: 6 }) }), { minLength: 1, maxLength: 40 }),
  });

  it('grants from all of them together exactly what the balance allows, never more, and the usage rows add up to the balance', async () => {
    const prefix = shared.freshPrefix();
    const ledgers = clients.map((client) => new RedisCreditLedger(client, prefix));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 60 }), fc.array(phase, { minLength: 1, maxLength: 4 }), async (credits, phases) => {
        const rule: CreditRule = { name: 'shared', credits, refill: PERIOD_MS };
        const subject = randomUUID();
        let now = Date.UTC(2026, 0, 1);
        let model: CreditBalance = { balance: credits, period: now };
        let granted = 0;
        let refills = 0;
        let topUps = 0;
        const answers: CreditSpend[] = [];
        for (const { advance, topUps: adds, spends } of phases) {
          now += advance * PERIOD_MS;
          const refill = refilled(model, rule, now);
          model = refill.state;
          refills += refill.added;
          for (const { instance: at, add } of adds) {
            await ledgers[at]!.change(subject, rule, { add }, now);
            model = afterChange(model, { add });
            topUps += add;
          }
          const available = model.balance;
          const phaseAnswers = await Promise.all(spends.map(({ instance: at, units }) => ledgers[at]!.spend(subject, rule, units, now)));
          const phaseGranted = spends.reduce((sum, { units }, i) => sum + (phaseAnswers[i]!.granted ? units : 0), 0);
          const after = (await ledgers[0]!.standing(subject, rule, now)).balance;
          // Never more than the balance held, and each refusal for a spend the balance could not hold even at the end.
          expect(phaseGranted).toBeLessThanOrEqual(available);
          expect(after).toBe(available - phaseGranted);
          spends.forEach(({ units }, i) => {
            if (!phaseAnswers[i]!.granted) expect(units).toBeGreaterThan(after);
          });
          model = { ...model, balance: after };
          granted += phaseGranted;
          answers.push(...phaseAnswers);
        }
        expect(granted).toBeLessThanOrEqual(credits + refills + topUps);
        expect(granted).toBe(credits + refills + topUps - model.balance);
        const rows = await ledgers[INSTANCES - 1]!.usage({ subject });
        const total = (column: 'spent' | 'spends' | 'refused' | 'refilled' | 'adjusted'): number => rows.reduce((sum, row) => sum + row[column], 0);
        expect([total('spent'), total('spends'), total('refused'), total('refilled'), total('adjusted')]).toEqual([
          granted,
          answers.filter((answer) => answer.granted).length,
          answers.filter((answer) => !answer.granted).length,
          refills,
          topUps,
        ]);
        expect(ledgerBalance(rule, rows)).toBe(model.balance);
      }),
      { numRuns: runs(25) },
    );
  });
});

describe('RedisCreditLedger across a crash of Redis (appendonly, appendfsync always)', () => {
  let dir: string;
  let server: RedisServerProcess | undefined;
  const clients: Redis[] = [];
  const serverArgs = (): string[] => ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-credits-aof-'));
    server = await startRedisServer(undefined, serverArgs());
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged spend and top-up, in the balance and in the usage rows', async () => {
    const prefix = 'credits-restart:';
    const connect = async (): Promise<RedisCreditLedger> => {
      const client = await createRedisClient({ url: server!.url, commandTimeoutMs: 5_000 });
      clients.push(client);
      return new RedisCreditLedger(client, prefix);
    };
    const before = await connect();
    const spends = await Promise.all(Array.from({ length: 50 }, (_, i) => before.spend(`key:${i % 5}`, MONTHLY, 1 + (i % 3), JANUARY + i)));
    expect(spends.every(({ granted }) => granted)).toBe(true);
    await Promise.all([0, 1, 2, 3, 4].map((i) => before.change(`key:${i}`, MONTHLY, { add: 10 * i }, JANUARY + 100)));
    await before.spend('key:0', MONTHLY, 7, FEBRUARY);
    const balances = await Promise.all([0, 1, 2, 3, 4].map((i) => before.standing(`key:${i}`, MONTHLY, FEBRUARY)));
    const rows = await before.usage({});
    expect(rows).toHaveLength(6);

    const { port } = server!;
    await server!.stop();
    server = await startRedisServer(port, serverArgs());
    const after = await connect();
    expect(await Promise.all([0, 1, 2, 3, 4].map((i) => after.standing(`key:${i}`, MONTHLY, FEBRUARY)))).toEqual(balances);
    expect(await after.usage({})).toEqual(rows);
    // January: 19, 20, 21, 19 and 20 units spent, 0 to 40 topped up; February refills to 100 (key:0 then spends 7), keeping more.
    expect(balances.map(({ balance }) => balance)).toEqual([93, 100, 100, 111, 120]);
  });
});
