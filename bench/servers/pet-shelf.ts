/**
 * What the reference servers keep, the same for each: pets by id and by status, and the bench
 * keys as SHA-256 digests mapped to their limit per minute. Pets come only from the bench's
 * own POSTs, so ids ascend in every array.
 */
import { createHash } from 'node:crypto';
import { allBenchKeys } from '../http/keys.js';

export const STATUSES = ['available', 'pending', 'sold'] as const;
export type Status = (typeof STATUSES)[number];
export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: Status;
}

export const ANONYMOUS_PER_MINUTE = 60;
export const digest = (key: string): string => createHash('sha256').update(key).digest('hex');
export const perMinuteOfDigest = new Map(allBenchKeys().map((key) => [digest(key.key), key.perMinute]));

export const all: Pet[] = [];
export const byStatus = new Map<Status, Pet[]>(STATUSES.map((status) => [status, []]));

export const addPet = (pet: Pet): void => {
  all.push(pet);
  byStatus.get(pet.status)?.push(pet);
};

/** Index of the first pet with an id above `afterId` (arrays ascend by id). */
export const firstAfter = (pets: readonly Pet[], afterId: number): number => {
  let low = 0;
  let high = pets.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (pets[middle]!.id <= afterId) low = middle + 1;
    else high = middle;
  }
  return low;
};

/** The next page's link, as both references write it: the cursor is the last id. */
export const nextLink = (limit: number, status: Status | undefined, lastId: number): string =>
  `</v1/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${lastId}>; rel="next"`;
