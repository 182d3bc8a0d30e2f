import Type, { type TSchema } from 'typebox';
import type { CursorShape } from '../../../domain/paging/page-cursor.js';
import type { ParameterDeclaration } from './operation-declaration.js';
import { PageLimitSchema } from './schemas.js';

/** The query of a paged listing (`limit`, `status`, `cursor`), the same for every listing. */
export const listingQuery = (items: string, statusSchema: TSchema, cursorShape: CursorShape): Readonly<Record<'limit' | 'status' | 'cursor', ParameterDeclaration>> => ({
  limit: { description: `Maximum number of ${items} returned: plain decimal digits.`, schema: PageLimitSchema },
  status: { description: `Keeps only ${items} with this status.`, schema: statusSchema },
  cursor: {
    description: 'Opaque: taken from the `rel="next"` link of the previous page. Any other value is a 400.',
    schema: Type.String({ pattern: cursorShape.pattern, maxLength: cursorShape.maxLength }),
  },
});
