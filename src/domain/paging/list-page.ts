import type { PageCursor } from './page-cursor.js';

/** A page of a listing and, when at least one more item matches, where the next one starts. */
export interface ListPage<Item, Status extends string> {
  readonly items: readonly Item[];
  readonly next?: { readonly cursor: string; readonly limit: number; readonly status?: Status };
}

/**
 * The page from `found`, read with one item more than `limit` asked: that extra item tells
 * whether a next page exists without a second query, so no page reached through it is empty.
 */
export function listPage<Item extends { readonly id: number }, Status extends string>(
  found: readonly Item[],
  limit: number,
  status: Status | undefined,
  encode: (cursor: PageCursor<Status>) => string,
): ListPage<Item, Status> {
  const items = found.slice(0, limit);
  const last = items.at(-1);
  if (found.length <= limit || last === undefined) return { items };
  const filter = status === undefined ? {} : { status };
  return { items, next: { cursor: encode({ afterId: last.id, ...filter }), limit, ...filter } };
}
