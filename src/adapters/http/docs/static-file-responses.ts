import type { SuccessResponse } from '../contract/operation.js';

/** The headers sendStaticFile adds to a file's 200 and 304, by their components in the document. */
export const STATIC_FILE_HEADERS = { ETag: 'ETag', 'Cache-Control': 'Cache-Control', Vary: 'Vary' } as const;

/** A 200's: those of a 304, and the coding its body is sent in. */
export const STATIC_FILE_BODY_HEADERS = { ...STATIC_FILE_HEADERS, 'Content-Encoding': 'Content-Encoding' } as const;

export const NOT_MODIFIED: SuccessResponse = {
  description: "If-None-Match named the file's current ETag: no body.",
  headers: STATIC_FILE_HEADERS,
};
