import { randomUUID } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';
import type { ConcurrencySlots, SlotGrant } from '../../ports/concurrency-slots.js';
import { ACQUIRE_SLOT_LUA, COUNT_SLOTS_LUA, RENEW_SLOTS_LUA } from './concurrency-scripts.lua.js';
import type { RedisClient } from './redis-client.js';
import { fromRedis } from './redis-failures.js';
import { assertValidKeyPrefix } from './redis-key-prefix.js';

/**
 * How long a lease lives without renewal: the bound within which the slots of an instance that
 * died (or lost Redis) come back to the others.
 */
export const SLOT_LEASE_MS = 10_000;

/** Renewals per lease time: a lease is renewed twice more before it could expire, so one late or lost renewal costs nothing. */
const RENEWALS_PER_LEASE = 3;

interface ConcurrencyScripts {
  petstoreAcquireSlot(key: string, now: string, limit: string, leaseMs: string, lease: string): Promise<[number, number]>;
  petstoreCountSlots(key: string, now: string): Promise<number>;
  petstoreRenewSlots(key: string, now: string, leaseMs: string, ...leases: string[]): Promise<number>;
}

export interface RedisConcurrencySlotsOptions {
  readonly prefix: string;
  /** Default SLOT_LEASE_MS. */
  readonly leaseMs?: number;
  /** Whose clock expires leases: `'server'` (the default) the Redis server's TIME; a Clock, for tests. */
  readonly time?: 'server' | Clock;
}

/**
 * Slots shared by every instance: a subject's leases are one sorted set (lease id -> expiry)
 * under `{c:<subject>}`, one key and so one Cluster slot per subject, taken and given back by
 * one command each. Expired leases are dropped by every acquire, so an instance that dies gives
 * its slots back within the lease time (SLOT_LEASE_MS); a living one renews the leases it holds
 * every third of it, so a request longer than the lease keeps its slot. Renewals are one script
 * call per subject held, on one timer that runs only while this instance holds a slot.
 */
export class RedisConcurrencySlots implements ConcurrencySlots {
  private readonly redis: RedisClient & ConcurrencyScripts;
  private readonly keyPrefix: string;
  private readonly leaseMs: number;
  private readonly leaseArg: string;
  private readonly clock: Clock | undefined;
  /** Unique across instances: the leases of one subject live in one set. */
  private readonly instance = randomUUID();
  private nextLease = 0;
  /** The leases this instance holds, by subject: what the renewals renew. */
  private readonly held = new Map<string, Set<string>>();
  private renewals: NodeJS.Timeout | undefined;

  constructor(redis: RedisClient, { prefix, leaseMs = SLOT_LEASE_MS, time = 'server' }: RedisConcurrencySlotsOptions) {
    this.keyPrefix = assertValidKeyPrefix(prefix);
    this.leaseMs = leaseMs;
    this.leaseArg = String(leaseMs);
    this.clock = time === 'server' ? undefined : time;
    redis.defineCommand('petstoreAcquireSlot', { numberOfKeys: 1, lua: ACQUIRE_SLOT_LUA });
    redis.defineCommand('petstoreCountSlots', { numberOfKeys: 1, lua: COUNT_SLOTS_LUA });
    redis.defineCommand('petstoreRenewSlots', { numberOfKeys: 1, lua: RENEW_SLOTS_LUA });
    this.redis = redis as RedisClient & ConcurrencyScripts;
  }

  async acquire(subject: string, limit: number): Promise<SlotGrant> {
    const lease = `${this.instance}:${this.nextLease++}`;
    const [granted, inFlight] = await fromRedis(this.redis, () =>
      this.redis.petstoreAcquireSlot(this.keyOf(subject), this.now(), String(limit), this.leaseArg, lease),
    );
    if (granted !== 1) return { granted: false, inFlight, lease: undefined };
    this.hold(subject, lease);
    return { granted: true, inFlight, lease };
  }

  inFlight(subject: string): Promise<number> {
    return fromRedis(this.redis, () => this.redis.petstoreCountSlots(this.keyOf(subject), this.now()));
  }

  async release(subject: string, lease: string): Promise<void> {
    this.letGo(subject, lease);
    await fromRedis(this.redis, () => this.redis.zrem(this.keyOf(subject), lease));
  }

  /** Every lease this instance holds runs the lease time from now again. */
  private renew(): void {
    const now = this.now();
    for (const [subject, leases] of this.held) {
      // A renewal Redis misses is retried by the next; a lease that expires meanwhile frees its slot early.
      this.redis.petstoreRenewSlots(this.keyOf(subject), now, this.leaseArg, ...leases).catch(() => undefined);
    }
  }

  private hold(subject: string, lease: string): void {
    let leases = this.held.get(subject);
    if (leases === undefined) {
      leases = new Set();
      this.held.set(subject, leases);
    }
    leases.add(lease);
    this.renewals ??= setInterval(() => this.renew(), this.leaseMs / RENEWALS_PER_LEASE).unref();
  }

  private letGo(subject: string, lease: string): void {
    const leases = this.held.get(subject);
    if (leases === undefined || !leases.delete(lease) || leases.size > 0) return;
    this.held.delete(subject);
    if (this.held.size === 0 && this.renewals !== undefined) {
      clearInterval(this.renewals);
      this.renewals = undefined;
    }
  }

  private now(): string {
    return this.clock === undefined ? '' : String(this.clock.now());
  }

  private keyOf(subject: string): string {
    return `${this.keyPrefix}{c:${subject}}`;
  }
}
