import { invalid, type DomainError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import { decodeBase64Url, encodeBase64Url } from './base64url.js';
import { isPetStatus, isValidId, type PetStatus } from './pet.js';

/** Where the next page starts, and the status filter the cursor was issued for. */
export interface PetCursor {
  readonly afterId: number;
  readonly status?: PetStatus;
}

// Version 1: `v1.<afterId>` or `v1.<afterId>.<status>`, afterId without leading zeros.
const CURSOR_TEXT = /^v1\.([1-9][0-9]{0,15})(?:\.(available|pending|sold))?$/;
// The longest cursor issued (v1.9007199254740991.available) is 39 characters: longer input is not parsed.
const MAX_CURSOR_LENGTH = 39;

const INVALID_CURSOR = invalid('cursor', 'cursor is not one issued by this service');

export const encodePetCursor = (cursor: PetCursor): string =>
  encodeBase64Url(cursor.status === undefined ? `v1.${cursor.afterId}` : `v1.${cursor.afterId}.${cursor.status}`);

/** Accepts exactly the strings encodePetCursor returns. */
export const decodePetCursor = (text: string): Result<PetCursor, DomainError> => {
  if (text.length > MAX_CURSOR_LENGTH) return err(INVALID_CURSOR);
  const match = CURSOR_TEXT.exec(decodeBase64Url(text) ?? '');
  if (match === null) return err(INVALID_CURSOR);
  const afterId = Number(match[1]);
  if (!isValidId(afterId)) return err(INVALID_CURSOR);
  const status = match[2];
  const cursor: PetCursor = isPetStatus(status) ? { afterId, status } : { afterId };
  // Base64url has several spellings of one text (the unused low bits of the last character):
  // only the one this service issues is accepted.
  return encodePetCursor(cursor) === text ? ok(cursor) : err(INVALID_CURSOR);
};
