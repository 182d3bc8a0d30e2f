import { randomUUID } from 'node:crypto';

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

/** The caller's X-Request-Id when it is one value of safe characters, else a new UUID. */
export const requestIdOf = (header: string | string[] | undefined): RequestId =>
  (typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : randomUUID()) as RequestId;
