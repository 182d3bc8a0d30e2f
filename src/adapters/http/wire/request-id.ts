import { randomFillSync } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** 1 to 128 characters safe in a header and a log line; anything else is replaced, never echoed. */
export const REQUEST_ID_PATTERN = '^[A-Za-z0-9._~:/+=-]{1,128}$';
const SAFE_REQUEST_ID = new RegExp(REQUEST_ID_PATTERN);

declare const safeCharacters: unique symbol;
/**
 * An X-Request-Id as the service answers and logs it: 1 to 128 ASCII characters, none of which
 * a header or a JSON string escapes, so a log line writes it as it is. Only `requestIdOf` makes one.
 */
export type RequestId = string & { readonly [safeCharacters]: true };

/** UUIDs made at once: one random fill and one string for all of them. */
const UUID_BATCH = 256;
const UUID_BYTES = 16;
const UUID_CHARS = 36;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;
const uuidBytes = Buffer.alloc(UUID_BATCH * UUID_BYTES);
const uuidAscii = Buffer.alloc(UUID_BATCH * UUID_CHARS);
let uuidText = '';
let nextUuid = UUID_BATCH;

/**
 * A new random (version 4, RFC 9562) UUID, as crypto.randomUUID makes it but cheaper for a
 * header: randomUUID joins each of its strings from 20 pieces, which the header's validation and
 * write then flatten, on every request. Here a batch is written as one string and each UUID is a
 * slice of it.
 */
const newUuid = (): string => {
  if (nextUuid === UUID_BATCH) {
    randomFillSync(uuidBytes);
    let out = 0;
    for (let at = 0; at < uuidBytes.length; at += UUID_BYTES) {
      // The version (4) and variant (10) bits.
      uuidBytes[at + 6] = (uuidBytes[at + 6]! & 0x0f) | 0x40;
      uuidBytes[at + 8] = (uuidBytes[at + 8]! & 0x3f) | 0x80;
      for (let i = 0; i < UUID_BYTES; i++) {
        // 8-4-4-4-12 hex digits.
        if (i === 4 || i === 6 || i === 8 || i === 10) uuidAscii[out++] = DASH;
        const byte = uuidBytes[at + i]!;
        uuidAscii[out++] = HEX_DIGITS[byte >> 4]!;
        uuidAscii[out++] = HEX_DIGITS[byte & 0x0f]!;
      }
    }
    uuidText = uuidAscii.toString('latin1');
    nextUuid = 0;
  }
  const at = UUID_CHARS * nextUuid++;
  return uuidText.slice(at, at + UUID_CHARS);
};

/** The caller's X-Request-Id when it is one value of safe characters, else a new UUID. */
export const requestIdOf = (header: string | string[] | undefined): RequestId =>
  (typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : newUuid()) as RequestId;
