import type { NextPage } from '../../../domain/paging/list-page.js';

/**
 * RFC 8288 `Link: <...>; rel="next"` to the next page of the listing at `path` under
 * `basePath` (where the client reached the API), keeping `limit` and `status`.
 */
export function nextPageLink(basePath: string, path: string, next: NextPage<string>): string {
  const status = next.status === undefined ? '' : `&status=${next.status}`;
  return `<${basePath}${path}?limit=${next.limit}${status}&cursor=${encodeURIComponent(next.cursor)}>; rel="next"`;
}
