import type { Redis } from 'ioredis';
import type { QuotaDecision, QuotaVerdict } from '../../domain/quota/quota-decision.js';
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
  private readonly redis: Redis & QuotaScript;
  private readonly keyPrefix: string;
  private readonly clock: Clock | undefined;
  private readonly checked = new WeakSet<QuotaPolicy>();

  constructor(redis: Redis, { prefix, time = 'server' }: RedisQuotaStoreOptions) {
    this.keyPrefix = assertValidKeyPrefix(prefix);
    this.clock = time === 'server' ? undefined : time;
    redis.defineCommand('petstoreDecideQuota', { numberOfKeys: 1, lua: QUOTA_LUA });
    this.redis = redis as Redis & QuotaScript;
  }

  async decide(subject: string, policy: QuotaPolicy): Promise<QuotaDecision> {
    if (!this.checked.has(policy)) {
      assertScriptCanDecide(policy);
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

/** Counts are stored as 32-bit integers, as in the in-memory engine. */
const MAX_LIMIT = 0xffff_ffff;

/**
 * The rules the in-memory engine accepts, and for the same reasons: granules of whole
 * milliseconds keep every time an exact integer, a limit of at least 1 always has a retry
 * time, and counts fit their 32 bits. A rule outside them is a configuration mistake.
 */
const assertScriptCanDecide = ({ rules, ban }: QuotaPolicy): void => {
  for (const { name, limit, windowMs } of rules) {
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0 || windowMs % 60 !== 0) {
      throw new RangeError(`quota rule ${name}: windowMs must be a positive multiple of 60`);
    }
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new RangeError(`quota rule ${name}: limit must be an integer from 1 to ${MAX_LIMIT}`);
    }
  }
  if (ban !== undefined && !(Number.isSafeInteger(ban.strikes) && ban.strikes >= 1)) {
    throw new RangeError('ban policy: strikes must be a positive integer');
  }
};

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
