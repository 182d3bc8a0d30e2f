import { invalid, type DomainError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import type { CursorCodec } from './page-cursor.js';
import { parsePageLimit } from './page-limits.js';

/** Raw query values: the domain validates them, so any transport can pass what it received. */
export interface ListQuery {
  readonly limit?: unknown;
  readonly status?: unknown;
  readonly cursor?: unknown;
}

export interface ParsedListQuery<Status extends string> {
  readonly limit: number;
  readonly status: Status | undefined;
  readonly afterId: number;
}

/** `limit` 1..100 (default 20), an optional status of the listing, and a cursor this listing issued for that status. */
export function parseListQuery<Status extends string>(
  query: ListQuery,
  statuses: readonly Status[],
  cursors: CursorCodec<Status>,
): Result<ParsedListQuery<Status>, DomainError> {
  const limit = parsePageLimit(query.limit);
  if (!limit.ok) return limit;
  const status = query.status;
  if (status !== undefined && !(statuses as readonly unknown[]).includes(status)) {
    return err(invalid('status', `status must be one of ${statuses.join(', ')}`));
  }
  const filter = status as Status | undefined;
  if (query.cursor === undefined) return ok({ limit: limit.value, status: filter, afterId: 0 });
  if (typeof query.cursor !== 'string') return err(invalid('cursor', 'cursor must be a single string'));
  const cursor = cursors.decode(query.cursor);
  if (!cursor.ok) return cursor;
  // A cursor positions within one filtered sequence; reusing it on another would skip or repeat items.
  if (cursor.value.status !== filter) return err(invalid('cursor', 'cursor was issued for a different status filter'));
  return ok({ limit: limit.value, status: filter, afterId: cursor.value.afterId });
}
