import type { RedisClient } from './redis-client.js';
import type { QuotaDecision, QuotaVerdict } from '../../domain/quota/quota-decision.js';
import { assertDecidablePolicy } from '../../domain/quota/decidable-policy.js';
import type { QuotaPolicy } from '../../domain/quota/quota-rule.js';
import type { Clock } from '../../ports/clock.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import { QUOTA_LUA } from './quota-script.lua.js';
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

interface QuotaScript {
  petstoreDecideQuota(key: string, ...args: string[]): Promise<string[]>;
}

const VERDICTS: readonly QuotaVerdict[] = ['admitted', 'rate_limited', 'banned'];

/**
 * Each decision is one Lua script call (sent by its SHA, resent whole by ioredis after a
 * NOSCRIPT): every rule, the strike and the ban, atomically. A subject's data is one hash
 * under `{q:<subject>}`, bounded per rule like the in-memory rings and expiring when idle.
 */
export class RedisQuotaStore implements QuotaStore {
  private readonly redis: RedisClient & QuotaScript;
  private readonly keyPrefix: string;
  private readonly clock: Clock | undefined;
  private readonly checked = new WeakSet<QuotaPolicy>();

  constructor(redis: RedisClient, { prefix, time = 'server' }: RedisQuotaStoreOptions) {
    this.keyPrefix = assertValidKeyPrefix(prefix);
    this.clock = time === 'server' ? undefined : time;
    redis.defineCommand('petstoreDecideQuota', { numberOfKeys: 1, lua: QUOTA_LUA });
    this.redis = redis as RedisClient & QuotaScript;
  }

  async decide(subject: string, policy: QuotaPolicy): Promise<QuotaDecision> {
    if (!this.checked.has(policy)) {
      assertDecidablePolicy(policy);
      this.checked.add(policy);
    }
    const now = this.clock === undefined ? '' : String(this.clock.now());
    const args = [now, String(policy.rules.length)];
    for (const rule of policy.rules) args.push(String(rule.limit), String(rule.windowMs));
    const { ban } = policy;
    args.push(...(ban === undefined ? ['0', '0', '0'] : [String(ban.strikes), String(ban.strikeWindowMs), String(ban.banMs)]));
    const reply = await fromRedis(this.redis, () => this.redis.petstoreDecideQuota(this.keyOf(subject), ...args));
    return decisionOf(reply, policy.rules.length);
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
