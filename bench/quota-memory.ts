import { MemoryQuotaStore } from '../src/adapters/memory/memory-quota-store.js';
import { DEFAULT_BAN_POLICY } from '../src/domain/quota/ban-policy.js';
import { STANDARD_PLANS } from '../src/domain/quota/plan.js';
import type { QuotaPolicy } from '../src/domain/quota/quota-rule.js';

/** How many keys the memory figures fill: enough that per-key bytes drown fixed costs. */
export const MEMORY_KEYS = 100_000;

/** Business's two rules (a minute and a day) with the default ban: what a key of a built-in plan keeps. */
export const TWO_RULES: QuotaPolicy = { rules: STANDARD_PLANS.business.rules, ban: DEFAULT_BAN_POLICY };

/** A fixed time: every key's first decision, in one window. */
const AT = 1_767_225_600_000;

/** MEMORY_KEYS subjects as the service names them: `key:` and a SHA-256 digest in hex. */
export const keySubjects = (): string[] => Array.from({ length: MEMORY_KEYS }, (_, i) => `key:${i.toString(16).padStart(64, '0')}`);

/**
 * Bytes per key that `fill` keeps reachable (JS heap + typed-array buffers, after full GCs),
 * the subjects made before so their strings are not counted; undefined without --expose-gc.
 */
function heldPerKey(fill: (subjects: readonly string[]) => { readonly size: number }): number | undefined {
  const gc = globalThis.gc;
  if (gc === undefined) return undefined;
  const used = (): number => {
    gc();
    gc();
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  const subjects = keySubjects();
  const before = used();
  const held = fill(subjects);
  // Divided by what `held` holds after the measure, which keeps it reachable until then.
  return (used() - before) / held.size;
}

/** Bytes per key of a MemoryQuotaStore after one decision of each key under TWO_RULES. */
export const quotaBytesPerKey = (): number | undefined =>
  heldPerKey((subjects) => {
    const store = new MemoryQuotaStore({ now: () => AT });
    for (const subject of subjects) store.decide(subject, TWO_RULES);
    return store;
  });

/** The reference: the least a per-key limiter keeps, a Map of a count and a time per key. */
export const counterMapBytesPerKey = (): number | undefined =>
  heldPerKey((subjects) => new Map(subjects.map((subject) => [subject, { count: 1, at: AT }])));
