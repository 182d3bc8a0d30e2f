import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { sendBody, sendNoBody, type RequestContext } from '../wire/request-context.js';

/** The content codings a file may be sent in, the smallest first: the order a client that accepts several gets them in. */
export const CONTENT_CODINGS = ['br', 'gzip'] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/** One representation of a file: as stored, or in a content coding. */
interface Representation {
  readonly coding: ContentCoding | undefined;
  readonly body: Buffer;
  /** A strong ETag of these bytes, `"<base64url SHA-256>"`: each representation has its own (RFC 9110 §8.8.3). */
  readonly etag: string;
}

/** A file served from memory, prepared once: its bytes, and each encoding of them that is smaller. */
export interface StaticFile {
  readonly contentType: string;
  /** The file's version, the base64url SHA-256 of its bytes: what a versioned URL names (`?v=`). */
  readonly version: string;
  /** As stored. */
  readonly identity: Representation;
  /** By coding, only those smaller than the file. */
  readonly encoded: ReadonlyMap<ContentCoding, Representation>;
}

/** A URL without a version, or naming another one: browsers revalidate each time, and an unchanged file costs a 304. */
export const STATIC_CACHE_CONTROL = 'no-cache';
/** A URL naming the file's current version (content hash) never changes meaning: kept a year, never revalidated. */
export const VERSIONED_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64url');
const representation = (coding: ContentCoding | undefined, body: Buffer): Representation => ({ coding, body, etag: `"${sha256(body)}"` });

const compressBrotli = promisify(brotliCompress);
const compressGzip = promisify(gzip);
/**
 * A file is compressed once per process, on zlib's thread pool, when first asked for: the
 * request waits. Brotli quality 9, not 11: the bundle in 0.14 s instead of 3.1 s, for 9% more
 * bytes (392,080 against 358,886); at 11 the first docs request of a process took 4.4 s, and
 * more than 5 s on a busy machine. gzip's best costs 0.05 s.
 */
const BROTLI_QUALITY = 9;
const ENCODERS: Readonly<Record<ContentCoding, (body: Buffer) => Promise<Buffer>>> = {
  br: (body) =>
    compressBrotli(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  gzip: (body) => compressGzip(body, { level: constants.Z_BEST_COMPRESSION }),
};

/** Text compresses; images such as PNG already are. */
const isCompressible = (contentType: string): boolean => /^(text\/|application\/json)/.test(contentType);

/** The file and its encodings, each kept only when smaller than the file. */
export async function prepareStaticFile(body: Buffer, contentType: string): Promise<StaticFile> {
  const identity = representation(undefined, body);
  const codings = isCompressible(contentType) ? CONTENT_CODINGS : [];
  const encodings = await Promise.all(codings.map(async (coding) => representation(coding, await ENCODERS[coding](body))));
  return {
    contentType,
    version: identity.etag.slice(1, -1),
    identity,
    encoded: new Map(encodings.filter((encoding) => encoding.body.length < body.length).map((encoding) => [encoding.coding!, encoding])),
  };
}

/**
 * The codings an Accept-Encoding admits (RFC 9110 §12.5.3): those listed with a q above 0,
 * and through `*` those not listed. Absent, the client takes only the file as stored.
 */
function acceptedCodings(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  if (header === undefined) return accepted;
  const refused = new Set<string>();
  let wildcard = false;
  for (const member of header.split(',')) {
    const [name = '', ...parameters] = member.split(';').map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const admitted = q === undefined || Number(q.slice(2)) > 0;
    if (name === '*') wildcard = admitted;
    else (admitted ? accepted : refused).add(name);
  }
  if (wildcard) for (const coding of CONTENT_CODINGS) if (!refused.has(coding)) accepted.add(coding);
  return accepted;
}

/** The smallest representation the request accepts. */
function representationFor(file: StaticFile, acceptEncoding: string | undefined): Representation {
  if (file.encoded.size === 0) return file.identity;
  const accepted = acceptedCodings(acceptEncoding);
  for (const coding of CONTENT_CODINGS) {
    const encoded = file.encoded.get(coding);
    if (encoded !== undefined && accepted.has(coding)) return encoded;
  }
  return file.identity;
}

/** RFC 9110 If-None-Match: `*` or a list of entity tags, compared weakly (a `W/` prefix is ignored). */
const matchesIfNoneMatch = (header: string | undefined, etag: string): boolean =>
  header !== undefined && header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || (trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === etag;
  });

export interface StaticFileOptions {
  /** The request's URL named the file's current version: the answer may be kept a year. */
  readonly versioned?: boolean;
  /** More header fields, as a list. */
  readonly extra?: readonly string[];
}

/**
 * 200 with the smallest representation the request accepts, or 304 when the request's
 * If-None-Match already names it; HEAD gets the same headers.
 */
export function sendStaticFile(ctx: RequestContext, file: StaticFile, options: StaticFileOptions = {}): void {
  const chosen = representationFor(file, ctx.req.headers['accept-encoding']);
  const cacheControl = options.versioned === true ? VERSIONED_CACHE_CONTROL : STATIC_CACHE_CONTROL;
  const fields = ['etag', chosen.etag, 'cache-control', cacheControl, 'x-content-type-options', 'nosniff', ...(options.extra ?? [])];
  // Caches must keep one answer per Accept-Encoding wherever the answer depends on it.
  if (file.encoded.size > 0) fields.push('vary', 'Accept-Encoding');
  if (matchesIfNoneMatch(ctx.req.headers['if-none-match'], chosen.etag)) return sendNoBody(ctx, 304, fields);
  if (chosen.coding !== undefined) fields.push('content-encoding', chosen.coding);
  sendBody(ctx, 200, file.contentType, chosen.body, fields);
}

/**
 * A file built from `key` (a handler's services: its base path, its document) on the first
 * request that needs it, then kept as long as the key lives; a failed build is retried by the
 * next request.
 */
export function preparedPer<Key extends object>(build: (key: Key) => Promise<StaticFile>): (key: Key) => Promise<StaticFile> {
  const prepared = new WeakMap<Key, Promise<StaticFile>>();
  return (key) => {
    let file = prepared.get(key);
    if (file === undefined) {
      file = build(key);
      prepared.set(key, file);
      file.catch(() => prepared.delete(key));
    }
    return file;
  };
}
