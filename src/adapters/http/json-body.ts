import type { IncomingMessage } from 'node:http';
import type { HttpErrorCode } from './http-errors.js';

export const MAX_BODY_BYTES = 16 * 1024;

export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: HttpErrorCode; readonly message: string };

/** `application/json`, any parameters (charset) allowed, case-insensitive. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(';');
  const mediaType = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return mediaType === 'application/json';
}

const tooLarge: BodyResult = {
  ok: false,
  code: 'payload_too_large',
  message: `The request body must be at most ${MAX_BODY_BYTES} bytes.`,
};

/**
 * Reads a JSON body of at most MAX_BODY_BYTES. A declared or streamed excess is refused
 * without buffering the rest; the caller closes the connection so the unread bytes cannot
 * be taken for the next request.
 */
export function readJsonBody(req: IncomingMessage): Promise<BodyResult> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) return Promise.resolve(tooLarge);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.pause();
        settle(tooLarge);
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => settle({ ok: false, code: 'invalid_request', message: 'The request body could not be read.' }));
    req.on('end', () => settle(parseJson(Buffer.concat(chunks, size).toString('utf8'))));
  });
}

function parseJson(text: string): BodyResult {
  if (text.trim() === '') return { ok: false, code: 'invalid_request', message: 'The request body is empty: send a JSON object.' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, code: 'invalid_request', message: 'The request body is not valid JSON.' };
  }
}
