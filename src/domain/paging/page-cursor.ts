import { invalid, type DomainError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import { BASE64URL_PATTERN, decodeBase64Url, encodeBase64Url } from './base64url.js';
import { isValidId } from './ids.js';

/** Where the next page starts, and the status filter the cursor was issued for. */
export interface PageCursor<Status extends string> {
  readonly afterId: number;
  readonly status?: Status;
}

/** What every cursor of a listing looks like: the OpenAPI document declares it. */
export interface CursorShape {
  readonly pattern: string;
  readonly maxLength: number;
}

export interface CursorCodec<Status extends string> {
  readonly shape: CursorShape;
  encode(cursor: PageCursor<Status>): string;
  /** Accepts exactly the strings `encode` returns. */
  decode(text: string): Result<PageCursor<Status>, DomainError>;
}

const INVALID_CURSOR = invalid('cursor', 'cursor is not one issued by this service');

/**
 * Opaque cursors of one listing: base64url of `<tag>.<afterId>[.<status>]`. The tag tells
 * listings apart, so a cursor of one is a foreign cursor to another.
 */
export function cursorCodec<Status extends string>(tag: string, statuses: readonly Status[]): CursorCodec<Status> {
  const text = new RegExp(`^${tag}\\.([1-9][0-9]{0,15})(?:\\.(${statuses.join('|')}))?$`);
  const longestText = `${tag}.${Number.MAX_SAFE_INTEGER}.${[...statuses].sort((a, b) => b.length - a.length)[0] ?? ''}`;
  // Longer input is not even decoded.
  const maxLength = Math.ceil((longestText.length * 4) / 3);
  const isStatus = (value: string | undefined): value is Status => (statuses as readonly (string | undefined)[]).includes(value);

  const encode = (cursor: PageCursor<Status>): string =>
    encodeBase64Url(cursor.status === undefined ? `${tag}.${cursor.afterId}` : `${tag}.${cursor.afterId}.${cursor.status}`);

  return {
    shape: { pattern: BASE64URL_PATTERN, maxLength },
    encode,
    decode(encoded) {
      if (encoded.length > maxLength) return err(INVALID_CURSOR);
      const match = text.exec(decodeBase64Url(encoded) ?? '');
      if (match === null) return err(INVALID_CURSOR);
      const afterId = Number(match[1]);
      if (!isValidId(afterId)) return err(INVALID_CURSOR);
      const status = match[2];
      const cursor: PageCursor<Status> = isStatus(status) ? { afterId, status } : { afterId };
      // Base64url has several spellings of one text (the unused low bits of the last character):
      // only the one this service issues is accepted.
      return encode(cursor) === encoded ? ok(cursor) : err(INVALID_CURSOR);
    },
  };
}
