/**
 * Sliding window of sub-window counters. A rule's window is cut into 60 granules of
 * g = windowMs / 60 (1 s for the minute rule, 24 min for the day rule). At time t, with
 * current bucket c = floor(t / g), the rule counts the 61 buckets c-60 .. c: the partially
 * covered oldest bucket is counted whole, so no rolling window ever holds more than the
 * limit, and a rule costs 63 counters whatever its limit.
 *
 * The rules of one subject share a Uint32Array: first, per rule, the total of its ring and
 * the ring cell of its oldest non-empty bucket (valid while the total is not zero), side by
 * side so one cache line holds them all; then, per rule, the ring of 61 bucket counts
 * (bucket b in cell b mod 61). Requests are only ever counted in the newest bucket, so the
 * oldest non-empty one changes only when it drops out or a refund empties it.
 */
export const GRANULES_PER_WINDOW = 60;
/** The buckets a rule counts: the current one and the GRANULES_PER_WINDOW before it. */
export const RING = GRANULES_PER_WINDOW + 1;

export const granuleMs = (windowMs: number): number => windowMs / GRANULES_PER_WINDOW;

export const windowCells = (ruleCount: number): Uint32Array => new Uint32Array(ruleCount * (RING + 2));

const totalCell = (rule: number): number => 2 * rule;
const oldestCell = (rule: number): number => 2 * rule + 1;
const ringStart = (rule: number, ruleCount: number): number => 2 * ruleCount + RING * rule;

/** How many requests rule `rule` counts now (after `advanceWindow` to the current bucket). */
export const countedRequests = (cells: Uint32Array, rule: number): number => cells[totalCell(rule)]!;

/** Moves a rule's ring from bucket `from` to bucket `to`, forgetting the buckets that stopped being counted. */
export const advanceWindow = (cells: Uint32Array, rule: number, ruleCount: number, from: number, to: number): void => {
  let total = cells[totalCell(rule)]!;
  if (to <= from || total === 0) return;
  const ring = ringStart(rule, ruleCount);
  if (to - from >= RING) {
    cells.fill(0, ring, ring + RING);
    cells[totalCell(rule)] = 0;
    return;
  }
  let cell = (from + 1) % RING;
  for (let bucket = from + 1; bucket <= to; bucket++) {
    total -= cells[ring + cell]!;
    cells[ring + cell] = 0;
    cell = cell === RING - 1 ? 0 : cell + 1;
  }
  cells[totalCell(rule)] = total;
  if (total !== 0 && cells[ring + cells[oldestCell(rule)]!] === 0) {
    cells[oldestCell(rule)] = firstNonEmptyCell(cells, ring, (to + 1) % RING);
  }
};

const firstNonEmptyCell = (cells: Uint32Array, ring: number, from: number): number => {
  let cell = from;
  while (cells[ring + cell] === 0) cell = cell === RING - 1 ? 0 : cell + 1;
  return cell;
};

/** Counts a request of `cost` units in the current bucket `current`. */
export const countRequest = (cells: Uint32Array, rule: number, ruleCount: number, current: number, cost: number): void => {
  const cell = current % RING;
  if (cells[totalCell(rule)] === 0) cells[oldestCell(rule)] = cell;
  const slot = ringStart(rule, ruleCount) + cell;
  cells[slot] = cells[slot]! + cost;
  cells[totalCell(rule)] = cells[totalCell(rule)]! + cost;
};

/**
 * Takes back up to `units` from bucket `bucket`, one of the buckets the ring counts (current-60
 * .. current): at most what it holds, so no count goes below zero, and no other bucket changes.
 */
export const refundRequest = (cells: Uint32Array, rule: number, ruleCount: number, bucket: number, units: number): void => {
  const ring = ringStart(rule, ruleCount);
  const slot = ring + (bucket % RING);
  const held = cells[slot]!;
  const back = units < held ? units : held;
  if (back === 0) return;
  cells[slot] = held - back;
  const total = cells[totalCell(rule)]! - back;
  cells[totalCell(rule)] = total;
  // The oldest bucket emptied: the oldest counted is now the next one holding something.
  if (total !== 0 && cells[ring + cells[oldestCell(rule)]!] === 0) {
    cells[oldestCell(rule)] = firstNonEmptyCell(cells, ring, cells[oldestCell(rule)]!);
  }
};

/** The bucket index held by ring `cell`, among the counted buckets current-60 .. current. */
const bucketOfCell = (current: number, cell: number): number => current - ((current - cell + RING) % RING);

/**
 * When the oldest counted request stops being counted, i.e. when the rule's remaining next
 * rises: bucket b is counted until c reaches b + 61. Only when the rule counts something.
 */
export const oldestDropTime = (cells: Uint32Array, rule: number, current: number, granule: number): number =>
  (bucketOfCell(current, cells[oldestCell(rule)]!) + RING) * granule;

/**
 * When the count first falls to `limit - cost` or less if nothing else is counted (a request
 * of `cost` then fits): dropping buckets oldest first, the drop time of the bucket that takes
 * it there. Only when the rule counts more than `limit - cost`, with `cost` at most `limit`.
 */
export const retryTime = (
  cells: Uint32Array,
  rule: number,
  ruleCount: number,
  current: number,
  granule: number,
  limit: number,
  cost: number,
): number => {
  const ring = ringStart(rule, ruleCount);
  const excess = cells[totalCell(rule)]! - limit + cost;
  let cell = cells[oldestCell(rule)]!;
  let dropped = 0;
  for (;;) {
    dropped += cells[ring + cell]!;
    if (dropped >= excess) return (bucketOfCell(current, cell) + RING) * granule;
    cell = cell === RING - 1 ? 0 : cell + 1;
  }
};
