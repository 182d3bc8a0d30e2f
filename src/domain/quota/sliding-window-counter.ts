/**
 * Sliding window of sub-window counters. A rule's window is cut into 60 granules of
 * g = windowMs / 60 (1 s for the minute rule, 24 min for the day rule). At time t, with
 * current bucket c = floor(t / g), the rule counts the 61 buckets c-60 .. c: the partially
 * covered oldest bucket is counted whole, so no rolling window ever holds more than the
 * limit, and a rule costs 63 counters whatever its limit.
 *
 * A rule occupies RULE_CELLS consecutive cells of a Uint32Array from `base`: the ring of
 * bucket counts (bucket b in cell b mod 61), their total, and the ring cell of the oldest
 * non-empty bucket (valid while the total is not zero). Requests are only ever counted in
 * the newest bucket, so the oldest non-empty one changes only when it drops out.
 */
export const GRANULES_PER_WINDOW = 60;
const RING = GRANULES_PER_WINDOW + 1;
const TOTAL = RING;
const OLDEST = RING + 1;
export const RULE_CELLS = RING + 2;

export const granuleMs = (windowMs: number): number => windowMs / GRANULES_PER_WINDOW;

/** How many requests the rule counts now (after `advanceWindow` to the current bucket). */
export const countedRequests = (cells: Uint32Array, base: number): number => cells[base + TOTAL]!;

/** Moves the ring from bucket `from` to bucket `to`, forgetting the buckets that stopped being counted. */
export const advanceWindow = (cells: Uint32Array, base: number, from: number, to: number): void => {
  let total = cells[base + TOTAL]!;
  if (to <= from || total === 0) return;
  if (to - from >= RING) {
    cells.fill(0, base, base + RING + 1);
    return;
  }
  let cell = (from + 1) % RING;
  for (let bucket = from + 1; bucket <= to; bucket++) {
    total -= cells[base + cell]!;
    cells[base + cell] = 0;
    cell = cell === RING - 1 ? 0 : cell + 1;
  }
  cells[base + TOTAL] = total;
  if (total !== 0 && cells[base + cells[base + OLDEST]!] === 0) {
    cells[base + OLDEST] = firstNonEmptyCell(cells, base, (to + 1) % RING);
  }
};

const firstNonEmptyCell = (cells: Uint32Array, base: number, from: number): number => {
  let cell = from;
  while (cells[base + cell] === 0) cell = cell === RING - 1 ? 0 : cell + 1;
  return cell;
};

/** Counts one request in the current bucket `current`. */
export const countRequest = (cells: Uint32Array, base: number, current: number): void => {
  const cell = current % RING;
  if (cells[base + TOTAL] === 0) cells[base + OLDEST] = cell;
  cells[base + cell]!++;
  cells[base + TOTAL]!++;
};

/** The bucket index held by ring `cell`, among the counted buckets current-60 .. current. */
const bucketOfCell = (current: number, cell: number): number => current - ((current - cell + RING) % RING);

/**
 * When the oldest counted request stops being counted, i.e. when the rule's remaining next
 * rises: bucket b is counted until c reaches b + 61. Only when the rule counts something.
 */
export const oldestDropTime = (cells: Uint32Array, base: number, current: number, granule: number): number =>
  (bucketOfCell(current, cells[base + OLDEST]!) + RING) * granule;

/**
 * When the count first falls to `limit - 1` or less if nothing else is counted: dropping
 * buckets oldest first, the drop time of the bucket that takes it there. Only when the
 * rule counts at least `limit`.
 */
export const retryTime = (cells: Uint32Array, base: number, current: number, granule: number, limit: number): number => {
  const excess = cells[base + TOTAL]! - limit + 1;
  let cell = cells[base + OLDEST]!;
  let dropped = 0;
  for (;;) {
    dropped += cells[base + cell]!;
    if (dropped >= excess) return (bucketOfCell(current, cell) + RING) * granule;
    cell = cell === RING - 1 ? 0 : cell + 1;
  }
};
