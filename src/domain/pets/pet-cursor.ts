import { cursorCodec, type PageCursor } from '../paging/page-cursor.js';
import { PET_STATUSES, type PetStatus } from './pet.js';

export type PetCursor = PageCursor<PetStatus>;

// Tag `v1`: the first cursors issued had only this listing, and they stay valid.
const petCursors = cursorCodec('v1', PET_STATUSES);

export const encodePetCursor = petCursors.encode;
export const decodePetCursor = petCursors.decode;
