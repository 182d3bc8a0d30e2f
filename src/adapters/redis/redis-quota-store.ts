import type { RedisClient } from './redis-client.js';
import type { QuotaDecision, QuotaVerdict } from '../../domain/quota/quota-decision.js';
import { assertDecidablePolicy } from '../../domain/quota/decidable-policy.js';
import type { QuotaPolicy } from '../../domain/quota/quota-rule.js';
import type { Clock } from '../../ports/clock.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { StrikeRecorder, StrikesReported } from '../../ports/strike-recorder.js';
import { TurnBatch } from '../turn-batch.js';
import { QUOTA_CALLS_LUA } from './quota-script.lua.js';
import { failureOfCall, fromRedis } from './redis-failures.js';
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

/** The most calls one script call takes (its keys); more in one turn make further calls. */
const MAX_CALLS_PER_SCRIPT = 256;

/** One call of QUOTA_CALLS_LUA: its kind, subject hash and script arguments. */
interface QuotaCall {
  readonly kind: 'decide' | 'strikes' | 'reset';
  readonly key: string;
  readonly args: readonly string[];
}

/** What QUOTA_CALLS_LUA answers a call: a decision's fields, none (no ban after strikes), DEL's count, or the call's own failure. */
type QuotaReply = string[] | null | number | Error;

interface QuotaScripts {
  /** The number of keys first: one per call. */
  petstoreQuotaCalls(numberOfKeys: number, ...keysAndArgs: string[]): Promise<QuotaReply[]>;
}

const VERDICTS: readonly QuotaVerdict[] = ['admitted', 'rate_limited', 'banned'];

/**
 * Each decision is one Lua script (sent by its SHA, resent whole by ioredis after a NOSCRIPT):
 * every rule, the strike and the ban, atomically; the decisions of one turn share one script
 * call. A subject's data is one hash under `{q:<subject>}`, bounded per rule like the
 * in-memory rings and expiring when idle. Strikes a cache answered (LocalRefusals) are added
 * by a second script on the same hash.
 */
export class RedisQuotaStore implements QuotaStore, StrikeRecorder {
  private readonly redis: RedisClient & QuotaScripts;
  private readonly keyPrefix: string;
  private readonly clock: Clock | undefined;
  private readonly checked = new WeakSet<QuotaPolicy>();

  constructor(redis: RedisClient, { prefix, time = 'server' }: RedisQuotaStoreOptions) {
    this.keyPrefix = assertValidKeyPrefix(prefix);
    this.clock = time === 'server' ? undefined : time;
    redis.defineCommand('petstoreQuotaCalls', { lua: QUOTA_CALLS_LUA });
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
    const reply = await this.#calls.add({ kind: 'reset', key: this.keyOf(subject), args: [] });
    if (reply instanceof Error) throw failureOfCall(reply);
  }

  async decideReportingStrikes(subject: string, policy: QuotaPolicy): Promise<StrikesReported> {
    const reply = await this.#decideScript(subject, policy, ['1', '', '1']);
    const fields = 3 + 2 * policy.rules.length;
    return { decision: decisionOf(reply.slice(0, fields), policy.rules.length), strikes: reply.slice(fields).map(Number) };
  }

  /** QUOTA_LUA's reply, its ARGV the policy's then `tail` (cost, peek, report strikes). */
  async #decideScript(subject: string, policy: QuotaPolicy, tail: readonly string[]): Promise<string[]> {
    const args = this.policyArgs(policy);
    args.push(...tail);
    return fieldsOf(await this.#calls.add({ kind: 'decide', key: this.keyOf(subject), args }));
  }

  /**
   * The calls of one turn in one script call, run in the order made: one command to build,
   * send, run and parse instead of one per request. On a Cluster, one script call per subject
   * (a script's keys share a slot), so a shard that is down fails only its own subjects' calls.
   */
  readonly #calls = new TurnBatch<QuotaCall, QuotaReply>(
    async (calls) => {
      const keysAndArgs = calls.map(({ key }) => key);
      for (const { kind, args } of calls) keysAndArgs.push(kind, String(args.length), ...args);
      return fromRedis(this.redis, () => this.redis.petstoreQuotaCalls(calls.length, ...keysAndArgs));
    },
    MAX_CALLS_PER_SCRIPT,
    ({ key }) => (this.redis.isCluster ? key : ''),
  );

  async recordStrikes(subject: string, policy: QuotaPolicy, strikes: readonly number[]): Promise<QuotaDecision | undefined> {
    // Without a ban rule a refusal is never a strike.
    if (policy.ban === undefined || strikes.length === 0) return undefined;
    const args = this.policyArgs(policy);
    for (const value of strikes) args.push(String(value));
    const reply = await this.#calls.add({ kind: 'strikes', key: this.keyOf(subject), args });
    return reply === null ? undefined : decisionOf(fieldsOf(reply), policy.rules.length);
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

const fieldsOf = (reply: QuotaReply): string[] => {
  if (reply instanceof Error) throw failureOfCall(reply);
  if (!Array.isArray(reply)) throw new Error(`Unexpected quota script reply: ${JSON.stringify(reply)}`);
  return reply;
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
