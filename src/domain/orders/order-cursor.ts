import { cursorCodec } from '../paging/page-cursor.js';
import { ORDER_STATUSES } from './order.js';

// Tag `o1`: a pet cursor is a foreign cursor here, and the reverse.
export const orderCursors = cursorCodec('o1', ORDER_STATUSES);
