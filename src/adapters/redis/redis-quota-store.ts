import { sendCorkedNow, type RedisClient } from './redis-client.js';
import { isBurst } from '../../domain/quota/burst-bucket.js';
import { countedAtOf, type QuotaDecision } from '../../domain/quota/quota-decision.js';
import { assertDecidablePolicy, assertRuleCosts } from '../../domain/quota/decidable-policy.js';
import type { QuotaPolicy, RuleCosts } from '../../domain/quota/quota-rule.js';
import type { Clock } from '../../ports/clock.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { StrikeRecorder, StrikesReported } from '../../ports/strike-recorder.js';
import { TurnBatch } from '../turn-batch.js';
import {
  BURST_WINDOW_MARK,
  CALL_KINDS,
  COST_SEPARATOR,
  DECIDE_MODES,
  QUOTA_CALLS_LUA,
  REPLY_MARKS,
  RULE_MODE_ARGS,
  VERDICT_CODES,
} from './quota-script.lua.js';
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

/**
 * The most calls one script call takes; more in one turn make further calls, each sent as it
 * fills (sendCorkedNow), so Redis decides the first eight while the instance still parses the
 * turn's other requests. With every call of a turn sent at its end, instance, Redis and load
 * generator took turns at the 50 requests of the bench at a time, 0.9 of the 2 cores idle.
 * GET list on Redis, 50 connections, runs side by side: 11.9-15.9k req/s sent at the turn's
 * end, 16.5-20.1k sent at 16, 17.4-22.8k at 8, no better at 4.
 */
const MAX_CALLS_PER_SCRIPT = 8;

/**
 * One call of QUOTA_CALLS_LUA: its subject hash, kind and arguments. `policy` is its policy's
 * arguments as built once (policyArgs): the same string for every call of that policy, which
 * is how a script call sends each policy once.
 */
type QuotaCall =
  | { readonly kind: 'decide'; readonly key: string; readonly now: string; readonly policy: string; readonly cost: string; readonly mode: DecideMode }
  | { readonly kind: 'strikes'; readonly key: string; readonly now: string; readonly policy: string; readonly strikes: readonly number[] }
  | { readonly kind: 'refund'; readonly key: string; readonly now: string; readonly policy: string; readonly countedAt: number; readonly units: string }
  | { readonly kind: 'reset'; readonly key: string };

type DecideMode = (typeof DECIDE_MODES)[keyof typeof DECIDE_MODES];

/** What QUOTA_CALLS_LUA answers a call: a decision's fields, none (no ban after strikes, a refund), DEL's count (one value), or the call's own failure. */
type QuotaReply = number[] | null | Error;

interface QuotaScripts {
  /** The number of keys first (one per call), then the arguments as one string; answers the packed replies, then the failed calls' errors. */
  petstoreQuotaCallsBuffer(numberOfKeys: number, ...keysAndArgs: string[]): Promise<[Buffer, ...Error[]]>;
}

/**
 * Each decision is one Lua script (sent by its SHA, resent whole by ioredis after a NOSCRIPT):
 * every rule, the strike and the ban, atomically; the decisions of one turn share script
 * calls of up to eight. A subject's data is one hash under `{q:<subject>}`, bounded per rule like the
 * in-memory rings and expiring when idle. Strikes a cache answered (LocalRefusals) and
 * refunds are calls of the same script on the same hash.
 */
export class RedisQuotaStore implements QuotaStore, StrikeRecorder {
  private readonly redis: RedisClient & QuotaScripts;
  private readonly keyPrefix: string;
  private readonly clock: Clock | undefined;
  /** Each policy's arguments, checked and built once: the same policy objects decide every request. */
  private readonly policyArgsOf = new WeakMap<QuotaPolicy, string>();

  constructor(redis: RedisClient, { prefix, time = 'server' }: RedisQuotaStoreOptions) {
    this.keyPrefix = assertValidKeyPrefix(prefix);
    this.clock = time === 'server' ? undefined : time;
    redis.defineCommand('petstoreQuotaCalls', { lua: QUOTA_CALLS_LUA });
    this.redis = redis as RedisClient & QuotaScripts;
  }

  async decide(subject: string, policy: QuotaPolicy, cost: number | RuleCosts = 1): Promise<QuotaDecision> {
    return decisionOf(await this.#decideCall(subject, policy, cost, DECIDE_MODES.decide), policy.rules.length);
  }

  async peek(subject: string, policy: QuotaPolicy, cost: number | RuleCosts = 1): Promise<QuotaDecision> {
    const reply = await this.#decideCall(subject, policy, cost, DECIDE_MODES.peek);
    // A peek's reply ends with the strikes, after the decision's fields.
    const strikes = reply.pop();
    return { ...decisionOf(reply, policy.rules.length), strikes: Number(strikes) };
  }

  async reset(subject: string): Promise<void> {
    const reply = await this.#calls.add({ kind: 'reset', key: this.keyOf(subject) });
    if (reply instanceof Error) throw failureOfCall(reply);
  }

  async refund(subject: string, policy: QuotaPolicy, units: RuleCosts, admitted: QuotaDecision): Promise<void> {
    const countedAt = countedAtOf(admitted);
    if (countedAt === undefined) return;
    // Built and checked before the batch, as a decision's.
    const args = this.policyArgs(policy);
    assertRuleCosts(policy.rules, units);
    const call: QuotaCall = { kind: 'refund', key: this.keyOf(subject), now: this.#now(), policy: args, countedAt, units: units.join(COST_SEPARATOR) };
    const reply = await this.#calls.add(call);
    if (reply instanceof Error) throw failureOfCall(reply);
    if (reply !== null) throw new Error(`Unexpected quota script reply to a refund: ${JSON.stringify(reply)}`);
  }

  async decideReportingStrikes(subject: string, policy: QuotaPolicy, cost: number | RuleCosts = 1): Promise<StrikesReported> {
    const reply = await this.#decideCall(subject, policy, cost, DECIDE_MODES.reportStrikes);
    const fields = decisionLength(reply, policy.rules.length);
    return { decision: decisionOf(reply, policy.rules.length, fields), strikes: reply.slice(fields) };
  }

  async #decideCall(subject: string, policy: QuotaPolicy, cost: number | RuleCosts, mode: DecideMode): Promise<number[]> {
    // Built (and checked) before the batch: a policy or cost the engine cannot count fails its own call only.
    const args = this.policyArgs(policy);
    // 1 is within every decidable rule's limit (the engine's shortcut).
    if (cost !== 1) assertRuleCosts(policy.rules, cost);
    const costArg = typeof cost === 'number' ? String(cost) : cost.join(COST_SEPARATOR);
    const call: QuotaCall = { kind: 'decide', key: this.keyOf(subject), now: this.#now(), policy: args, cost: costArg, mode };
    return fieldsOf(await this.#calls.add(call));
  }

  /**
   * The calls of one turn in one script call, run in the order made: one command to build,
   * send, run and parse instead of one per request, each policy's arguments sent once. On a
   * Cluster, one script call per subject (a script's keys share a slot), so a shard that is
   * down fails only its own subjects' calls.
   */
  readonly #calls = new TurnBatch<QuotaCall, QuotaReply>(
    async (calls) => {
      const policies = new Map<string, string>();
      let policyArgs = '';
      let callArgs = '';
      // The decisions alike that came last: sent as one run once another call or the end comes.
      let run = '';
      let runLength = 0;
      const endRun = (): void => {
        if (runLength > 0) callArgs += `${CALL_KINDS.decide} ${runLength} ${run}`;
        runLength = 0;
      };
      for (const call of calls) {
        if (call.kind === 'reset') {
          endRun();
          callArgs += `${CALL_KINDS.reset} `;
          continue;
        }
        let number = policies.get(call.policy);
        if (number === undefined) {
          number = String(policies.size + 1);
          policies.set(call.policy, number);
          policyArgs += call.policy;
        }
        if (call.kind === 'decide') {
          const decision = `${number} ${call.now} ${call.cost} ${call.mode} `;
          if (runLength > 0 && decision !== run) endRun();
          run = decision;
          runLength += 1;
        } else if (call.kind === 'refund') {
          endRun();
          callArgs += `${CALL_KINDS.refund} ${number} ${call.now} ${call.countedAt} ${call.units} `;
        } else {
          endRun();
          callArgs += `${CALL_KINDS.strikes} ${number} ${call.now} ${call.strikes.length} `;
          for (const strike of call.strikes) callArgs += `${strike} `;
        }
      }
      endRun();
      const keysAndArgs = calls.map(({ key }) => key);
      keysAndArgs.push(`${policies.size} ${policyArgs}${callArgs}`);
      const [packed, ...errors] = await fromRedis(this.redis, () => this.redis.petstoreQuotaCallsBuffer(calls.length, ...keysAndArgs));
      return repliesOf(packed, errors, calls.length);
    },
    MAX_CALLS_PER_SCRIPT,
    ({ key }) => (this.redis.isCluster ? key : ''),
    () => sendCorkedNow(this.redis),
  );

  async recordStrikes(subject: string, policy: QuotaPolicy, strikes: readonly number[]): Promise<QuotaDecision | undefined> {
    // Without a ban rule a refusal is never a strike.
    if (policy.ban === undefined || strikes.length === 0) return undefined;
    // Built before the batch, as a decision's.
    const call: QuotaCall = { kind: 'strikes', key: this.keyOf(subject), now: this.#now(), policy: this.policyArgs(policy), strikes };
    const reply = await this.#calls.add(call);
    return reply === null ? undefined : decisionOf(fieldsOf(reply), policy.rules.length);
  }

  /** A call's time: '' to use the Redis server's TIME. */
  #now(): string {
    return this.clock === undefined ? '' : String(this.clock.now());
  }

  /** A policy's arguments (the script's policyAt), each followed by a space, checked and built once per policy object. */
  private policyArgs(policy: QuotaPolicy): string {
    let args = this.policyArgsOf.get(policy);
    if (args === undefined) {
      assertDecidablePolicy(policy);
      const built: (number | string)[] = [policy.rules.length];
      for (const rule of policy.rules) {
        built.push(rule.limit, isBurst(rule) ? `${BURST_WINDOW_MARK}${rule.windowMs}` : rule.windowMs, RULE_MODE_ARGS[rule.mode ?? 'enforce']);
      }
      const { ban } = policy;
      built.push(...(ban === undefined ? [0, 0, 0] : [ban.strikes, ban.strikeWindowMs, ban.banMs]));
      args = built.map((arg) => `${arg} `).join('');
      this.policyArgsOf.set(policy, args);
    }
    return args;
  }

  private keyOf(subject: string): string {
    return `${this.keyPrefix}{q:${subject}}`;
  }
}

/** Each call's reply out of the script's: packed doubles, a call's count of values before them (REPLY_MARKS in its place for none or failed). */
const repliesOf = (packed: Buffer, errors: readonly Error[], calls: number): QuotaReply[] => {
  const replies: QuotaReply[] = [];
  let offset = 0;
  let failed = 0;
  // readDoubleLE throws RangeError past the end: a reply shorter than it says fails its batch.
  for (let call = 0; call < calls; call += 1) {
    const count = packed.readDoubleLE(offset);
    offset += 8;
    if (count === REPLY_MARKS.none) replies.push(null);
    else if (count === REPLY_MARKS.failed) replies.push(errors[failed++] ?? new Error('The quota script reported a failed call without its error'));
    else {
      const values: number[] = [];
      for (let i = 0; i < count; i += 1, offset += 8) values.push(packed.readDoubleLE(offset));
      replies.push(values);
    }
  }
  if (offset !== packed.length) throw new Error(`The quota script answered ${packed.length} bytes for ${calls} calls; they take ${offset}`);
  return replies;
};

const fieldsOf = (reply: QuotaReply): number[] => {
  if (reply instanceof Error) throw failureOfCall(reply);
  if (reply === null) throw new Error('Unexpected quota script reply: none');
  return reply;
};

/**
 * How many of a reply's fields are its decision's: verdict, decidedAt, retryAt, the shadowed
 * count, each rule's remaining and reset, the shadowed indices, countedAt.
 */
const decisionLength = (reply: readonly number[], ruleCount: number): number => 5 + 2 * ruleCount + (reply[3] ?? 0);

/** The decision in the reply's first `length` fields (a reply reporting strikes has them after). */
const decisionOf = (reply: readonly number[], ruleCount: number, length = reply.length): QuotaDecision => {
  const code = reply[0];
  const verdict = code === undefined ? undefined : VERDICT_CODES[code];
  if (verdict === undefined || length !== decisionLength(reply, ruleCount) || reply.length < length) {
    throw new Error(`Unexpected quota script reply: ${JSON.stringify(reply)}`);
  }
  const remaining: number[] = [];
  const resetAt: number[] = [];
  const rulesEnd = 4 + 2 * ruleCount;
  for (let i = 4; i < rulesEnd; i += 2) {
    remaining.push(reply[i] as number);
    resetAt.push(reply[i + 1] as number);
  }
  const decidedAt = reply[1] as number;
  const retryAt = reply[2] as number;
  const countedAt = reply[length - 1] as number;
  if (rulesEnd === length - 1 && countedAt === decidedAt) return { verdict, decidedAt, retryAt, remaining, resetAt };
  return {
    verdict,
    decidedAt,
    retryAt,
    remaining,
    resetAt,
    ...(rulesEnd === length - 1 ? {} : { shadowed: reply.slice(rulesEnd, length - 1) }),
    // Only an admission counts: the script answers the decision's time for the others.
    ...(countedAt === decidedAt ? {} : { countedAt }),
  };
};
