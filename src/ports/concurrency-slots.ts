import type { CallScope } from './tracer.js';

/** The answer to an acquire: whether a slot was taken, and the slots in flight after it. */
export interface SlotGrant {
  readonly granted: boolean;
  /** The subject's slots held once the call is done: with this one when granted, else the ones that refused it. */
  readonly inFlight: number;
  /** What `release` gives back; undefined exactly when not granted. */
  readonly lease: string | undefined;
}

/**
 * At most `limit` slots of one subject held at once, across every instance sharing the store.
 * A slot is a lease that expires unless its holder renews it (the store states its lease time),
 * so the slots of an instance that dies come back without a release. In-memory stores answer
 * synchronously; remote ones with a promise, rejecting with StoreUnavailableError.
 */
export interface ConcurrencySlots {
  /** Takes a slot of `subject` when fewer than `limit` are held (expired leases do not count). */
  acquire(subject: string, limit: number, scope?: CallScope): SlotGrant | Promise<SlotGrant>;
  /** The subject's slots held now (expired leases do not count), taking none: what GET /rate_limit shows. */
  inFlight(subject: string, scope?: CallScope): number | Promise<number>;
  /** Gives `lease` back; a lease already expired or released is ignored. */
  release(subject: string, lease: string, scope?: CallScope): void | Promise<void>;
}
