import { invalid, type DomainError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import type { CursorCodec } from './page-cursor.js';
import { parsePageLimit } from './page-limits.js';

/**
 * A page to list: `limit` 1..100 (a number, or plain decimal digits as a query string holds it),
 * a status filter, and the cursor of the previous page. Validated whatever the caller passes.
 */
export interface ListQuery<Status extends string = string> {
  readonly limit?: number | string;
  readonly status?: Status;
  readonly cursor?: string;
}

/** What a list call takes: a typed query, or the raw values of a query string, validated alike. */
export type ListQueryInput<Status extends string = string> = ListQuery<Status> | { readonly [Field in keyof ListQuery]?: unknown };

export interface ParsedListQuery<Status extends string> {
  readonly limit: number;
  readonly status: Status | undefined;
  readonly afterId: number;
}

/** `limit` 1..100 (default 20), an optional status of the listing, and a cursor this listing issued for that status. */
export function parseListQuery<Status extends string>(
  query: ListQueryInput<Status>,
  statuses: readonly Status[],
  cursors: CursorCodec<Status>,
): Result<ParsedListQuery<Status>, DomainError> {
  const limit = parsePageLimit(query.limit);
  if (!limit.ok) return limit;
  const status: unknown = query.status;
  if (status !== undefined && !(statuses as readonly unknown[]).includes(status)) {
    return err(invalid('status', `status must be one of ${statuses.join(', ')}`));
  }
  const filter = status as Status | undefined;
  const text: unknown = query.cursor;
  if (text === undefined) return ok({ limit: limit.value, status: filter, afterId: 0 });
  if (typeof text !== 'string') return err(invalid('cursor', 'cursor must be a single string'));
  const cursor = cursors.decode(text);
  if (!cursor.ok) return cursor;
  // A cursor positions within one filtered sequence; reusing it on another would skip or repeat items.
  if (cursor.value.status !== filter) return err(invalid('cursor', 'cursor was issued for a different status filter'));
  return ok({ limit: limit.value, status: filter, afterId: cursor.value.afterId });
}
