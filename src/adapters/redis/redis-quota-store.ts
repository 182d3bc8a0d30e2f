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

/**
 * One call of QUOTA_CALLS_LUA: its kind, subject hash and script arguments, kept in parts
 * (the time, the policy's arguments shared by its every call, the call's own) and joined
 * only into the batch's arguments, so a decision copies no array of its own.
 */
interface QuotaCall {
  readonly kind: 'decide' | 'strikes' | 'reset';
  readonly key: string;
  /** ARGV[1], the time; undefined for a reset, which takes no arguments. */
  readonly now?: string;
  readonly policy: readonly string[];
  readonly tail: readonly string[];
}

const NONE: readonly string[] = [];
/** QUOTA_LUA's last ARGV (cost, peek, report strikes) of a decision reporting strikes. */
const REPORTING_STRIKES: readonly string[] = ['1', '', '1'];

/** What QUOTA_CALLS_LUA answers a call: a decision's fields, none (no ban after strikes), DEL's count, or the call's own failure. */
type QuotaReply = string[] | null | number | Error;

interface QuotaScripts {
  /** The number of keys first: one per call. */
  petstoreQuotaCalls(numberOfKeys: number, ...keysAndArgs: string[]): Promise<QuotaReply[]>;
}

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
  /** Each policy's ARGV after the time, checked and built once: the same policy objects decide every request. */
  private readonly policyArgsOf = new WeakMap<QuotaPolicy, readonly string[]>();

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
    const reply = await this.#calls.add({ kind: 'reset', key: this.keyOf(subject), policy: NONE, tail: NONE });
    if (reply instanceof Error) throw failureOfCall(reply);
  }

  async decideReportingStrikes(subject: string, policy: QuotaPolicy): Promise<StrikesReported> {
    const reply = await this.#decideScript(subject, policy, REPORTING_STRIKES);
    const fields = 3 + 2 * policy.rules.length;
    const strikes: number[] = [];
    for (let i = fields; i < reply.length; i += 1) strikes.push(Number(reply[i]));
    return { decision: decisionOf(reply, policy.rules.length, fields), strikes };
  }

  /** QUOTA_LUA's reply, its ARGV the time, the policy's, then `tail` (cost, peek, report strikes). */
  async #decideScript(subject: string, policy: QuotaPolicy, tail: readonly string[]): Promise<string[]> {
    return fieldsOf(await this.#calls.add({ kind: 'decide', key: this.keyOf(subject), now: this.#now(), policy: this.policyArgs(policy), tail }));
  }

  /**
   * The calls of one turn in one script call, run in the order made: one command to build,
   * send, run and parse instead of one per request. On a Cluster, one script call per subject
   * (a script's keys share a slot), so a shard that is down fails only its own subjects' calls.
   */
  readonly #calls = new TurnBatch<QuotaCall, QuotaReply>(
    async (calls) => {
      const keysAndArgs = calls.map(({ key }) => key);
      for (const { kind, now, policy, tail } of calls) {
        if (now === undefined) {
          keysAndArgs.push(kind, '0');
          continue;
        }
        keysAndArgs.push(kind, String(1 + policy.length + tail.length), now);
        for (const arg of policy) keysAndArgs.push(arg);
        for (const arg of tail) keysAndArgs.push(arg);
      }
      return fromRedis(this.redis, () => this.redis.petstoreQuotaCalls(calls.length, ...keysAndArgs));
    },
    MAX_CALLS_PER_SCRIPT,
    ({ key }) => (this.redis.isCluster ? key : ''),
  );

  async recordStrikes(subject: string, policy: QuotaPolicy, strikes: readonly number[]): Promise<QuotaDecision | undefined> {
    // Without a ban rule a refusal is never a strike.
    if (policy.ban === undefined || strikes.length === 0) return undefined;
    const reply = await this.#calls.add({
      kind: 'strikes',
      key: this.keyOf(subject),
      now: this.#now(),
      policy: this.policyArgs(policy),
      tail: strikes.map(String),
    });
    return reply === null ? undefined : decisionOf(fieldsOf(reply), policy.rules.length);
  }

  /** The scripts' ARGV[1]: '' to use the Redis server's TIME. */
  #now(): string {
    return this.clock === undefined ? '' : String(this.clock.now());
  }

  /** The scripts' ARGV after the time, up to the ban policy. */
  private policyArgs(policy: QuotaPolicy): readonly string[] {
    let args = this.policyArgsOf.get(policy);
    if (args === undefined) {
      assertDecidablePolicy(policy);
      const built = [String(policy.rules.length)];
      for (const rule of policy.rules) built.push(String(rule.limit), String(rule.windowMs));
      const { ban } = policy;
      built.push(...(ban === undefined ? ['0', '0', '0'] : [String(ban.strikes), String(ban.strikeWindowMs), String(ban.banMs)]));
      args = built;
      this.policyArgsOf.set(policy, args);
    }
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

const verdictOf = (field: string | undefined): QuotaVerdict | undefined =>
  field === 'admitted' || field === 'rate_limited' || field === 'banned' ? field : undefined;

/** The decision in the reply's first `length` fields (a reply reporting strikes has them after). */
const decisionOf = (reply: readonly string[], ruleCount: number, length = reply.length): QuotaDecision => {
  const verdict = verdictOf(reply[0]);
  if (verdict === undefined || length !== 3 + 2 * ruleCount || reply.length < length) {
    throw new Error(`Unexpected quota script reply: ${JSON.stringify(reply)}`);
  }
  const remaining: number[] = [];
  const resetAt: number[] = [];
  for (let i = 3; i < length; i += 2) {
    remaining.push(Number(reply[i]));
    resetAt.push(Number(reply[i + 1]));
  }
  return { verdict, decidedAt: Number(reply[1]), retryAt: Number(reply[2]), remaining, resetAt };
};
