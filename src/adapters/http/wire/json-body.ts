import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { HttpErrorCode } from './http-errors.js';
import { findDuplicateKey } from './json-duplicate-keys.js';
import { findDisguisedFraction } from './json-integers.js';
import type { RequestContext } from './request-context.js';
import { MAX_BODY_BYTES } from './request-limits.js';

export type BodyResult =
  /** `bytes`: the body as sent, for an Idempotency-Key fingerprint. */
  | { readonly ok: true; readonly value: unknown; readonly bytes: Buffer }
  | { readonly ok: false; readonly code: HttpErrorCode; readonly message: string };

/** `application/json`, any parameters (charset) allowed, case-insensitive. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(';');
  const mediaType = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return mediaType === 'application/json';
}

/** The only content coding a body may be sent in: none at all. */
export const IDENTITY_CODING = 'identity';

/**
 * Whether Content-Encoding leaves the body as sent: absent, or `identity` only (any case).
 * A coding the service does not decode would be read as JSON in its encoded bytes.
 */
const isIdentityCoding = (header: string | undefined): boolean =>
  header === undefined ||
  header.split(',').every((coding) => {
    const name = coding.trim().toLowerCase();
    return name === '' || name === IDENTITY_CODING;
  });

const encoded: BodyResult = {
  ok: false,
  code: 'unsupported_media_type',
  message: `The request body must be sent without a Content-Encoding (or as ${IDENTITY_CODING}): it is not decoded.`,
};

const tooLarge: BodyResult = {
  ok: false,
  code: 'payload_too_large',
  message: `The request body must be at most ${MAX_BODY_BYTES} bytes.`,
};

const invalid = (message: string): BodyResult => ({ ok: false, code: 'invalid_request', message });

/**
 * Reads a JSON body of at most MAX_BODY_BYTES. A declared or streamed excess is refused
 * without buffering the rest, and the body stays unread so the answer closes the connection.
 */
export function readJsonBody(ctx: RequestContext): Promise<BodyResult> {
  const req = ctx.req;
  const parsed = hostParsedBody(req);
  if (parsed !== undefined) {
    ctx.bodyRead = req.readableEnded;
    return Promise.resolve(fromHostParser(parsed));
  }
  // Read to the end by someone else, with nothing left behind: waiting for 'end' would wait forever.
  if (req.readableEnded || req.readableDidRead) return Promise.resolve(consumedElsewhere);
  // Checked only here: a host's parser (express.json) decodes the body and leaves the header.
  if (!isIdentityCoding(req.headers['content-encoding'])) return Promise.resolve(encoded);
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
    req.on('error', () => settle(invalid('The request body could not be read.')));
    req.on('end', () => {
      ctx.bodyRead = true;
      settle(parseJson(Buffer.concat(chunks, size)));
    });
  });
}

/**
 * What a host framework's body parser left on the request: express's `req.body` (a parsed
 * value from express.json(), a Buffer from express.raw(), a string from express.text()), or
 * fastify's `request.body` put there by the mount.
 */
const hostParsedBody = (req: IncomingMessage): unknown => (req as IncomingMessage & { body?: unknown }).body;

const consumedElsewhere: BodyResult = {
  ok: false,
  code: 'internal_error',
  message:
    'The request body was read before this handler and left nowhere it can find it: mount the pet store handler ' +
    'before any body parser, or leave the parsed body on req.body.',
};

/**
 * A body the host already read, checked like one read here: raw bytes and text are parsed as
 * sent; a parsed value is measured and fingerprinted as its JSON (a number the host's parser
 * rounded, such as 9007199254740990.5, can no longer be told from an integer).
 */
function fromHostParser(body: unknown): BodyResult {
  if (Buffer.isBuffer(body)) return body.length > MAX_BODY_BYTES ? tooLarge : parseJson(body);
  if (typeof body === 'string') return fromHostParser(Buffer.from(body, 'utf8'));
  const text = JSON.stringify(body);
  if (text === undefined) return invalid('The request body is not valid JSON.');
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > MAX_BODY_BYTES) return tooLarge;
  // A copy of the host's value: nothing the host does with its object afterwards reaches what is stored.
  return { ok: true, value: JSON.parse(text) as unknown, bytes };
}

function parseJson(bytes: Buffer): BodyResult {
  // Decoding would turn malformed bytes into U+FFFD and store a name the client never sent.
  if (!isUtf8(bytes)) return invalid('The request body is not valid UTF-8.');
  const text = bytes.toString('utf8');
  if (text.trim() === '') return invalid('The request body is empty: send a JSON object.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid('The request body is not valid JSON.');
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) return invalid(`The request body names the key ${JSON.stringify(duplicate)} more than once in one object: send each key once.`);
  const fraction = findDisguisedFraction(text);
  if (fraction !== undefined) {
    const field = fraction.member ?? 'a number';
    return invalid(`${field} must be an integer: ${fraction.source} is not one, and is not rounded`);
  }
  return { ok: true, value, bytes };
}
