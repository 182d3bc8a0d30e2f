import Type, { type TSchema } from 'typebox';
import type { NextPage } from '../../../domain/paging/list-page.js';
import type { CursorShape } from '../../../domain/paging/page-cursor.js';
import type { ParameterDeclaration } from '../contract/operation.js';
import { PageLimitSchema } from '../contract/schemas.js';

/** The query of a paged listing (`limit`, `status`, `cursor`), the same for every listing. */
export const listingQuery = (items: string, statusSchema: TSchema, cursorShape: CursorShape): Readonly<Record<'limit' | 'status' | 'cursor', ParameterDeclaration>> => ({
  limit: { description: `Maximum number of ${items} returned: plain decimal digits.`, schema: PageLimitSchema },
  status: { description: `Keeps only ${items} with this status.`, schema: statusSchema },
  cursor: {
    description: 'Opaque: taken from the `rel="next"` link of the previous page. Any other value is a 400.',
    schema: Type.String({ pattern: cursorShape.pattern, maxLength: cursorShape.maxLength }),
  },
});

/**
 * RFC 8288 `Link: <...>; rel="next"` to the next page of the listing at `path` under
 * `basePath` (where the client reached the API), keeping `limit` and `status`.
 */
export function nextPageLink(basePath: string, path: string, next: NextPage<string>): string {
  const status = next.status === undefined ? '' : `&status=${next.status}`;
  return `<${basePath}${path}?limit=${next.limit}${status}&cursor=${encodeURIComponent(next.cursor)}>; rel="next"`;
}
