import { cursorCodec } from '../paging/page-cursor.js';
import { PET_STATUSES } from './pet.js';

// Tag `v1`: the first cursors issued had only this listing, and they stay valid.
export const petCursors = cursorCodec('v1', PET_STATUSES);
