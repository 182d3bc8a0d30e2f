import type { PageCursor } from './page-cursor.js';

/** A page of a listing and, when at least one more item matches, where the next one starts. */
export interface ListPage<Item, Status extends string> {
  readonly items: readonly Item[];
  readonly next?: NextPage<Status>;
}

/** The query of a listing's next page: its cursor, with the limit and filter of the page before. */
export interface NextPage<Status extends string> {
  readonly cursor: string;
  readonly limit: number;
  readonly status?: Status;
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
  const next = nextPage(found.length > limit ? items.at(-1)?.id : undefined, limit, status, encode);
  return next === undefined ? { items } : { items, next };
}

/** Where the page after the one ending at `lastId` starts; undefined when no item matches after it. */
export function nextPage<Status extends string>(
  lastId: number | undefined,
  limit: number,
  status: Status | undefined,
  encode: (cursor: PageCursor<Status>) => string,
): NextPage<Status> | undefined {
  if (lastId === undefined) return undefined;
  const filter = status === undefined ? {} : { status };
  return { cursor: encode({ afterId: lastId, ...filter }), limit, ...filter };
}
