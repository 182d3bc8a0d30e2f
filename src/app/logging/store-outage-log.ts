import type { OutageListener } from '../../adapters/store-outages.js';
import type { Logger } from './logger.js';

/** A store is back once it has answered for this long: a pool whose connections each find a restart on their own flaps for a moment. */
export const SETTLE_MS = 1_000;

/** Runs `task` after `delayMs`; the returned function cancels it. */
export type Schedule = (task: () => void, delayMs: number) => () => void;

const timers: Schedule = (task, delayMs) => {
  const timer = setTimeout(task, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

interface Outage {
  readonly since: number;
  /** Cancels the "available again" line of a store that answered, until it has answered for SETTLE_MS. */
  cancelRecovery?: () => void;
}

/**
 * One log line when a store stops answering and one when it is back, however many connection
 * errors and failed calls the outage brings, and however it flaps on the way back: a warning
 * naming the store and the first cause, then how long it was down. For a store the API is
 * served without, the lines say so: the instance becomes degraded, then recovers.
 */
export class StoreOutageLog {
  readonly #outages = new Map<string, Outage>();

  /** `fallbacks`: the stores the API is served without while they are down, and what serves instead (readiness.ts): their lines say the instance is degraded. */
  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly schedule: Schedule = timers,
    private readonly fallbacks: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** What the adapters of `store` tell. */
  listenerFor(store: string): OutageListener {
    const fallback = this.fallbacks.get(store);
    return {
      unavailable: (cause) => {
        const outage = this.#outages.get(store);
        if (outage !== undefined) {
          outage.cancelRecovery?.();
          delete outage.cancelRecovery;
          return;
        }
        this.#outages.set(store, { since: this.now() });
        const reason = cause instanceof Error ? cause.message : String(cause);
        if (fallback === undefined) this.logger.warn({ store, cause: reason }, 'store unavailable');
        else this.logger.warn({ store, cause: reason, degraded: true, fallback }, 'store unavailable; serving degraded');
      },
      available: () => {
        const outage = this.#outages.get(store);
        if (outage === undefined || outage.cancelRecovery !== undefined) return;
        const downMs = this.now() - outage.since;
        outage.cancelRecovery = this.schedule(() => {
          this.#outages.delete(store);
          if (fallback === undefined) this.logger.info({ store, downMs }, 'store available again');
          else this.logger.info({ store, downMs, degraded: false }, 'store available again; no longer degraded');
        }, SETTLE_MS);
      },
    };
  }
}
