import { openingBalance, refilled, standingOf, type CreditChange } from '../../domain/credits/credit-balance.js';
import { periodStartOf } from '../../domain/credits/credit-periods.js';
import { initialCreditsOf, type CreditRule } from '../../domain/credits/credit-rule.js';
import { assertCreditChange, assertCreditUnits } from '../../domain/credits/credit-units.js';
import type { CreditChangeResult, CreditLedger, CreditSpend, CreditStanding, CreditUsage, CreditUsageQuery } from '../../ports/credit-ledger.js';
import { CHANGE_CREDITS_LUA, CREDIT_USAGE_LUA, REFUND_CREDITS_LUA, SPEND_CREDITS_LUA } from './credit-scripts.lua.js';
import type { RedisClient } from './redis-client.js';
import { fromRedis } from './redis-failures.js';
import { assertValidKeyPrefix } from './redis-key-prefix.js';

/** A subject's three keys, in the order every credit script takes them (credit-state.lua). */
type SubjectKeys = readonly [balance: string, usage: string, periods: string];

interface CreditScripts {
  petstoreSpendCredits(...args: [...SubjectKeys, period: string, credits: string, initial: string, units: string]): Promise<[number, number, number]>;
  petstoreRefundCredits(...args: [...SubjectKeys, period: string, credits: string, initial: string, units: string, spentIn: string]): Promise<number>;
  petstoreChangeCredits(...args: [...SubjectKeys, period: string, credits: string, initial: string, kind: 'set' | 'add', value: string]): Promise<[number, number, number]>;
  petstoreCreditUsage(usage: string, periods: string, min: string, max: string, ...columns: string[]): Promise<string[]>;
}

type Column = Exclude<keyof CreditUsage, 'subject' | 'period'>;
const COLUMNS: readonly Column[] = ['spent', 'spends', 'refused', 'refunded', 'refunds', 'refilled', 'adjusted'];

/** Subjects this instance knows to be in the index; past this many it forgets them all and adds each again once. */
const INDEXED_SUBJECTS = 100_000;
/** usage({}): the subjects read at once, one script call each. */
const SUBJECTS_PER_BATCH = 64;

/**
 * Credits shared by every instance, kept as records (with AOF, a restart loses no acknowledged
 * spend). A subject's balance, usage rows and their periods are three keys under `{k:<subject>}`,
 * one Cluster slot, so each spend, refund or change is one script call: the refill, the step and
 * its usage row together or not at all. The period `now` falls in is worked out here, from the
 * rule (credit-periods.ts); the scripts only compare it with the stored one, so a lagging clock
 * never refills backwards and Lua does no calendar arithmetic.
 *
 * usage({}) reads every subject's rows through an index, a set of subjects under the prefix. On
 * a Cluster it is in a slot of its own, so it cannot join a subject's script: a subject is added
 * to it (SADD, once per instance) BEFORE its first write, so the index always holds every subject
 * with rows (at worst one more, whose script then failed, which has none). A SCAN of the masters
 * would instead walk every key of the store, and miss keys a resharding moves under it.
 */
export class RedisCreditLedger implements CreditLedger {
  private readonly redis: RedisClient & CreditScripts;
  private readonly keyPrefix: string;
  private readonly subjectsKey: string;
  private readonly indexed = new Set<string>();

  constructor(redis: RedisClient, prefix: string) {
    this.keyPrefix = assertValidKeyPrefix(prefix);
    this.subjectsKey = `${prefix}credit-subjects`;
    redis.defineCommand('petstoreSpendCredits', { numberOfKeys: 3, lua: SPEND_CREDITS_LUA });
    redis.defineCommand('petstoreRefundCredits', { numberOfKeys: 3, lua: REFUND_CREDITS_LUA });
    redis.defineCommand('petstoreChangeCredits', { numberOfKeys: 3, lua: CHANGE_CREDITS_LUA });
    redis.defineCommand('petstoreCreditUsage', { numberOfKeys: 2, lua: CREDIT_USAGE_LUA });
    this.redis = redis as RedisClient & CreditScripts;
  }

  async spend(subject: string, rule: CreditRule, units: number, now: number): Promise<CreditSpend> {
    assertCreditUnits(units);
    await this.index(subject);
    const [granted, balance, period] = await fromRedis(this.redis, () =>
      this.redis.petstoreSpendCredits(...this.keysOf(subject), ...ruleArgs(rule, now), String(units)),
    );
    return { granted: granted === 1, ...standingOf(rule, { balance, period }) };
  }

  async refund(subject: string, rule: CreditRule, units: number, spentIn: number, now: number): Promise<void> {
    assertCreditUnits(units);
    await this.index(subject);
    await fromRedis(this.redis, () => this.redis.petstoreRefundCredits(...this.keysOf(subject), ...ruleArgs(rule, now), String(units), String(spentIn)));
  }

  async standing(subject: string, rule: CreditRule, now: number): Promise<CreditStanding> {
    const [balance, period] = await fromRedis(this.redis, () => this.redis.hmget(this.keysOf(subject)[0], 'balance', 'period'));
    // Read only: the refill the next write would make, applied here by the rules themselves.
    const state =
      balance === null || period === null ? openingBalance(rule, now) : refilled({ balance: Number(balance), period: Number(period) }, rule, now).state;
    return standingOf(rule, state);
  }

  async change(subject: string, rule: CreditRule, change: CreditChange, now: number): Promise<CreditChangeResult> {
    assertCreditChange(change);
    await this.index(subject);
    const [kind, value] = 'set' in change ? (['set', change.set] as const) : (['add', change.add] as const);
    const [before, balance, period] = await fromRedis(this.redis, () =>
      this.redis.petstoreChangeCredits(...this.keysOf(subject), ...ruleArgs(rule, now), kind, String(value)),
    );
    return { before, after: standingOf(rule, { balance, period }) };
  }

  async usage({ subject, from, to }: CreditUsageQuery): Promise<readonly CreditUsage[]> {
    const bounds = [scoreBound(from, ''), scoreBound(to, '(')] as const;
    if (subject !== undefined) return this.rowsOf(subject, bounds);
    const subjects = (await this.subjects()).sort();
    const rows: CreditUsage[] = [];
    for (let start = 0; start < subjects.length; start += SUBJECTS_PER_BATCH) {
      const batch = await Promise.all(subjects.slice(start, start + SUBJECTS_PER_BATCH).map((name) => this.rowsOf(name, bounds)));
      rows.push(...batch.flat());
    }
    return rows;
  }

  private async rowsOf(subject: string, [min, max]: readonly [string, string]): Promise<CreditUsage[]> {
    const [, usage, periods] = this.keysOf(subject);
    const reply = await fromRedis(this.redis, () => this.redis.petstoreCreditUsage(usage, periods, min, max, ...COLUMNS));
    const rows: CreditUsage[] = [];
    const width = COLUMNS.length + 1;
    for (let at = 0; at < reply.length; at += width) {
      const columns = Object.fromEntries(COLUMNS.map((column, i) => [column, Number(reply[at + 1 + i])])) as Record<Column, number>;
      rows.push({ subject, period: Number(reply[at]), ...columns });
    }
    return rows;
  }

  /** Every subject in the index, by SSCAN: a large index never blocks Redis for one long reply. */
  private async subjects(): Promise<string[]> {
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [next, members] = await fromRedis(this.redis, () => this.redis.sscan(this.subjectsKey, cursor, 'COUNT', 1_000));
      for (const member of members) found.add(member);
      cursor = next;
    } while (cursor !== '0');
    return [...found];
  }

  /** Enters `subject` in the index before its first write from this instance (see the class comment). */
  private async index(subject: string): Promise<void> {
    if (this.indexed.has(subject)) return;
    await fromRedis(this.redis, () => this.redis.sadd(this.subjectsKey, subject));
    if (this.indexed.size >= INDEXED_SUBJECTS) this.indexed.clear();
    this.indexed.add(subject);
  }

  private keysOf(subject: string): SubjectKeys {
    // Each ends differently (`}`, `}:usage`, `}:periods`): no subject's key is another's.
    const balance = `${this.keyPrefix}{k:${subject}}`;
    return [balance, `${balance}:usage`, `${balance}:periods`];
  }
}

/** A ZRANGEBYSCORE bound: `from` inclusive (''), `to` exclusive ('('); absent or infinite, Redis's infinities. */
const scoreBound = (value: number | undefined, exclusive: '' | '('): string => {
  if (value === undefined) return exclusive === '' ? '-inf' : '+inf';
  return Number.isFinite(value) ? `${exclusive}${value}` : value > 0 ? '+inf' : '-inf';
};

/** The period `now` falls in, the rule's credits and its initial credits: what every write script starts from. */
const ruleArgs = (rule: CreditRule, now: number): [period: string, credits: string, initial: string] => [
  String(periodStartOf(rule.refill, now)),
  String(rule.credits),
  String(initialCreditsOf(rule)),
];
