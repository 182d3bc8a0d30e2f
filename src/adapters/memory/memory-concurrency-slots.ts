import type { Clock } from '../../ports/clock.js';
import type { ConcurrencySlots, SlotGrant } from '../../ports/concurrency-slots.js';

const REFUSED_AT = (inFlight: number): SlotGrant => ({ granted: false, inFlight, lease: undefined });

/**
 * One process's slots, decided synchronously. Its leases expire only when given a `leaseMs`:
 * the process that holds them is the only one that could release them, and dies with them, so a
 * server leaves it unset; a finite lease serves the models and the shared contract.
 */
export class MemoryConcurrencySlots implements ConcurrencySlots {
  readonly #clock: Clock;
  readonly #leaseMs: number;
  /** Per subject, each lease and its expiry; a subject without slots held is deleted, so memory follows the keys in flight. */
  readonly #held = new Map<string, Map<string, number>>();
  #nextLease = 0;

  constructor(clock: Clock, { leaseMs = Number.POSITIVE_INFINITY }: { readonly leaseMs?: number } = {}) {
    this.#clock = clock;
    this.#leaseMs = leaseMs;
  }

  acquire(subject: string, limit: number): SlotGrant {
    const inFlight = this.inFlight(subject);
    if (inFlight >= limit) return REFUSED_AT(inFlight);
    let leases = this.#held.get(subject);
    if (leases === undefined) {
      leases = new Map();
      this.#held.set(subject, leases);
    }
    const lease = String(this.#nextLease++);
    leases.set(lease, this.#clock.now() + this.#leaseMs);
    return { granted: true, inFlight: inFlight + 1, lease };
  }

  inFlight(subject: string): number {
    const leases = this.#held.get(subject);
    if (leases === undefined) return 0;
    const now = this.#clock.now();
    for (const [lease, expiresAt] of leases) if (expiresAt <= now) leases.delete(lease);
    if (leases.size === 0) this.#held.delete(subject);
    return leases.size;
  }

  release(subject: string, lease: string): void {
    const leases = this.#held.get(subject);
    if (leases === undefined) return;
    leases.delete(lease);
    if (leases.size === 0) this.#held.delete(subject);
  }
}
