import type { BanPolicy } from './quota-rule.js';

/** 20 strikes within 10 minutes ban a key for 15 minutes. */
export const DEFAULT_BAN_POLICY: BanPolicy = { strikes: 20, strikeWindowMs: 600_000, banMs: 900_000 };

/**
 * The most strikes a ban may count: every store keeps the times of the last `strikes` strikes
 * per subject and a refusal reports them, and Redis's Lua takes them as one call's values
 * (some 8,000 at most: past that every strike failed).
 */
export const MAX_BAN_STRIKES = 1_000;

/** The times of the last `strikes` strikes: only they can complete a ban, so memory stays bounded. */
export interface StrikeRing {
  readonly times: Float64Array;
  next: number;
  size: number;
}

/** What a subject carries for the ban rule. `strikes` stays null until the subject strikes. */
export interface BanState {
  /** Until when the last 429 told the client to wait (its Retry-After in whole seconds). */
  refusedUntil: number;
  bannedUntil: number;
  strikes: StrikeRing | null;
}

export const isBanned = (state: BanState, now: number): boolean => state.bannedUntil > now;

/**
 * Records a refusal at `now` whose Retry-After points to `retryAt`. A refusal while an
 * earlier one's Retry-After is still running is a strike; the strike that makes
 * `policy.strikes` strikes within `policy.strikeWindowMs` bans the subject. True when it did.
 */
export const registerRefusal = (state: BanState, policy: BanPolicy, now: number, retryAt: number): boolean => {
  const isStrike = now < state.refusedUntil;
  const toldUntil = now + 1000 * Math.ceil((retryAt - now) / 1000);
  if (toldUntil > state.refusedUntil) state.refusedUntil = toldUntil;
  if (!isStrike) return false;
  let ring = state.strikes;
  if (ring === null || ring.times.length !== policy.strikes) {
    ring = { times: new Float64Array(policy.strikes), next: 0, size: 0 };
    state.strikes = ring;
  }
  ring.times[ring.next] = now;
  ring.next = ring.next + 1 === ring.times.length ? 0 : ring.next + 1;
  if (ring.size < ring.times.length) ring.size++;
  // Full ring: the slot written next holds the oldest of the last `strikes` strikes.
  if (ring.size < ring.times.length || ring.times[ring.next]! <= now - policy.strikeWindowMs) return false;
  state.bannedUntil = now + policy.banMs;
  ring.next = 0;
  ring.size = 0;
  return true;
};

/**
 * The strikes kept that would still count towards a ban at `now`: those within the strike
 * window. A ring of another size counts none, since the next strike starts it over.
 */
export const strikesCounting = (state: BanState, policy: BanPolicy | undefined, now: number): number => {
  const ring = state.strikes;
  if (policy === undefined || ring === null || ring.times.length !== policy.strikes) return 0;
  let count = 0;
  // The ring fills from slot 0, and a ban empties it: its first `size` slots are the strikes kept.
  for (let i = 0; i < ring.size; i++) if (ring.times[i]! > now - policy.strikeWindowMs) count++;
  return count;
};

/** True when no strike kept can still count towards a ban. */
export const strikesExpired = (state: BanState, policy: BanPolicy | undefined, now: number): boolean => {
  const ring = state.strikes;
  if (ring === null || ring.size === 0) return true;
  const newest = ring.times[ring.next === 0 ? ring.times.length - 1 : ring.next - 1]!;
  return policy === undefined || newest <= now - policy.strikeWindowMs;
};
