/**
 * Exactness under two instances on one Redis: both processes of a limiter share one Redis
 * prefix and a limit of 100 per minute on one subject.
 *
 * - A burst: 150 requests at once on a fresh subject, split over the two instances.
 * - Across a window boundary, on another subject: 1 request at 0 s (it opens a fixed
 *   window, which ends 60 s later), 150 at once at 57 s, 150 at once at 61.5 s. A fixed
 *   window admits 99 at 57 s and 100 more at 61.5 s, 199 within 4.5 s; a sliding window no
 *   more than 100 in any rolling 60 s.
 *
 * Every request goes to 127.0.0.1 and has a 10 s timeout; 451 requests per limiter in all.
 */
import { SUBJECT_HEADER } from './common.js';

export const EXACT_LIMIT = 100;
export const BURST_SIZE = 150;
/** When the boundary bursts leave, after the request that opens the window. */
export const BOUNDARY_SCHEDULE_MS = { first: 57_000, second: 61_500 } as const;
const WINDOW_MS = 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

export interface BurstResult {
  readonly sent: number;
  /** 2xx answers, each instance's. */
  readonly admittedBy: readonly [number, number];
  /** 429 answers. */
  readonly refused: number;
  /** Other statuses, and requests that failed or timed out. */
  readonly other: number;
  /** Date.now() at the arrival of each 2xx answer. */
  readonly admittedAt: readonly number[];
}

export const admittedOf = (burst: BurstResult): number => burst.admittedBy[0] + burst.admittedBy[1];

/** `count` requests at once on `subject`, alternating between the two instances. */
export const burst = async (urls: readonly [string, string], subject: string, count: number): Promise<BurstResult> => {
  const admittedBy: [number, number] = [0, 0];
  const admittedAt: number[] = [];
  let refused = 0;
  let other = 0;
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const instance = i % 2 === 0 ? 0 : 1;
      try {
        const response = await fetch(`${urls[instance]}/hello`, {
          headers: { [SUBJECT_HEADER]: subject },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await response.arrayBuffer();
        if (response.status >= 200 && response.status < 300) {
          admittedBy[instance]++;
          admittedAt.push(Date.now());
        } else if (response.status === 429) refused++;
        else other++;
      } catch {
        other++;
      }
    }),
  );
  return { sent: count, admittedBy, refused, other, admittedAt };
};

/** The most of `times` (ms) that fall within any span shorter than `spanMs`. */
export const mostWithin = (times: readonly number[], spanMs: number): number => {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= spanMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
};

export interface ExactnessResult {
  readonly burst: BurstResult;
  readonly opening: BurstResult;
  readonly first: BurstResult;
  readonly second: BurstResult;
  /** The most boundary answers admitted within any rolling 60 s. */
  readonly mostInRollingWindow: number;
}

const sleepUntil = async (at: number): Promise<void> => {
  const wait = at - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
};

/** Both checks on one limiter's two instances, subjects `<tag>:burst` and `<tag>:boundary` (about 62 s). */
export const checkExactness = async (urls: readonly [string, string], tag: string): Promise<ExactnessResult> => {
  const openedAt = Date.now();
  const opening = await burst(urls, `${tag}:boundary`, 1);
  // The burst on its own subject while the boundary's window runs.
  const single = await burst(urls, `${tag}:burst`, BURST_SIZE);
  await sleepUntil(openedAt + BOUNDARY_SCHEDULE_MS.first);
  const first = await burst(urls, `${tag}:boundary`, BURST_SIZE);
  await sleepUntil(openedAt + BOUNDARY_SCHEDULE_MS.second);
  const second = await burst(urls, `${tag}:boundary`, BURST_SIZE);
  const mostInRollingWindow = mostWithin([...opening.admittedAt, ...first.admittedAt, ...second.admittedAt], WINDOW_MS);
  return { burst: single, opening, first, second, mostInRollingWindow };
};
