import type { RedisClient } from './redis-client.js';
import type { QuotaDecision, QuotaVerdict } from '../../domain/quota/quota-decision.js';
import { assertDecidablePolicy } from '../../domain/quota/decidable-policy.js';
import type { QuotaPolicy } from '../../domain/quota/quota-rule.js';
import type { Clock } from '../../ports/clock.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { StrikeRecorder, StrikesReported } from '../../ports/strike-recorder.js';
import { QUOTA_LUA, STRIKES_LUA } from './quota-script.lua.js';
import { fromRedis } from './redis-failures.js';
import { assertValidKeyPrefix } from './redis-key-prefix.js';

export interface RedisQuotaStoreOptions {
  readonly prefix: string;
  /**
   * Whose clock decides. `'server'` (the default, for production): the Redis server's TIME,
   * read inside the script, so instances with skewed clocks share one time and cannot
   * over-admit. A Clock: its time is sent with each call (tests, simulations).
   */
  readonly time?: 'server' | Clock;
}

interface QuotaScripts {
  petstoreDecideQuota(key: string, ...args: string[]): Promise<string[]>;
  petstoreRecordStrikes(key: string, ...args: string[]): Promise<string[] | null>;
}

const VERDICTS: readonly QuotaVerdict[] = ['admitted', 'rate_limited', 'banned'];

/**
 * Each decision is one Lua script call (sent by its SHA, resent whole by ioredis after a
 * NOSCRIPT): every rule, the strike and the ban, atomically. A subject's data is one hash
 * under `{q:<subject>}`, bounded per rule like the in-memory rings and expiring when idle.
 * Strikes a cache answered (LocalRefusals) are added by a second script on the same hash.
 */
export class RedisQuotaStore implements QuotaStore, StrikeRecorder {
  private readonly redis: RedisClient & QuotaScripts;
  private readonly keyPrefix: string;
  private readonly clock: Clock | undefined;
  private readonly checked = new WeakSet<QuotaPolicy>();

  constructor(redis: RedisClient, { prefix, time = 'server' }: RedisQuotaStoreOptions) {
    this.keyPrefix = assertValidKeyPrefix(prefix);
    this.clock = time === 'server' ? undefined : time;
    redis.defineCommand('petstoreDecideQuota', { numberOfKeys: 1, lua: QUOTA_LUA });
    redis.defineCommand('petstoreRecordStrikes', { numberOfKeys: 1, lua: STRIKES_LUA });
    this.redis = redis as RedisClient & QuotaScripts;
  }

  async decide(subject: string, policy: QuotaPolicy, cost = 1): Promise<QuotaDecision> {
    return decisionOf(await this.#decideScript(subject, policy, [String(cost), '']), policy.rules.length);
  }

  async peek(subject: string, policy: QuotaPolicy, cost = 1): Promise<QuotaDecision> {
    const reply = await this.#decideScript(subject, policy, [String(cost), '1']);
    // A peek's reply ends with the strikes, after the decision's fields.
    const strikes = reply.pop();
    return { ...decisionOf(reply, policy.rules.length), strikes: Number(strikes) };
  }

  async reset(subject: string): Promise<void> {
    await fromRedis(this.redis, () => this.redis.del(this.keyOf(subject)));
  }

  async decideReportingStrikes(subject: string, policy: QuotaPolicy): Promise<StrikesReported> {
    const reply = await this.#decideScript(subject, policy, ['1', '', '1']);
    const fields = 3 + 2 * policy.rules.length;
    return { decision: decisionOf(reply.slice(0, fields), policy.rules.length), strikes: reply.slice(fields).map(Number) };
  }

  /** QUOTA_LUA's reply, its ARGV the policy's then `tail` (cost, peek, report strikes). */
  #decideScript(subject: string, policy: QuotaPolicy, tail: readonly string[]): Promise<string[]> {
    const args = this.policyArgs(policy);
    args.push(...tail);
    return fromRedis(this.redis, () => this.redis.petstoreDecideQuota(this.keyOf(subject), ...args));
  }

  async recordStrikes(subject: string, policy: QuotaPolicy, strikes: readonly number[]): Promise<QuotaDecision | undefined> {
    // Without a ban rule a refusal is never a strike.
    if (policy.ban === undefined || strikes.length === 0) return undefined;
    const args = this.policyArgs(policy);
    for (const value of strikes) args.push(String(value));
    const reply = await fromRedis(this.redis, () => this.redis.petstoreRecordStrikes(this.keyOf(subject), ...args));
    return reply === null ? undefined : decisionOf(reply, policy.rules.length);
  }

  /** The scripts' ARGV up to the ban policy: the time, then the policy. */
  private policyArgs(policy: QuotaPolicy): string[] {
    if (!this.checked.has(policy)) {
      assertDecidablePolicy(policy);
      this.checked.add(policy);
    }
    const now = this.clock === undefined ? '' : String(this.clock.now());
    const args = [now, String(policy.rules.length)];
    for (const rule of policy.rules) args.push(String(rule.limit), String(rule.windowMs));
    const { ban } = policy;
    args.push(...(ban === undefined ? ['0', '0', '0'] : [String(ban.strikes), String(ban.strikeWindowMs), String(ban.banMs)]));
    return args;
  }

  private keyOf(subject: string): string {
    return `${this.keyPrefix}{q:${subject}}`;
  }
}

const decisionOf = (reply: readonly string[], ruleCount: number): QuotaDecision => {
  const verdict = VERDICTS.find((known) => known === reply[0]);
  if (verdict === undefined || reply.length !== 3 + 2 * ruleCount) {
    throw new Error(`Unexpected quota script reply: ${JSON.stringify(reply)}`);
  }
  const remaining: number[] = [];
  const resetAt: number[] = [];
  for (let i = 3; i < reply.length; i += 2) {
    remaining.push(Number(reply[i]));
    resetAt.push(Number(reply[i + 1]));
  }
  return { verdict, decidedAt: Number(reply[1]), retryAt: Number(reply[2]), remaining, resetAt };
};
