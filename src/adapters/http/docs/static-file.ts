import { createHash } from 'node:crypto';
import { sendBody, sendNoBody, type RequestContext } from '../wire/request-context.js';

/** A file served as is from memory, with the validator a browser revalidates it by. */
export interface StaticFile {
  readonly body: Buffer;
  readonly contentType: string;
  /** A strong ETag of the bytes: `"<base64url SHA-256>"`. */
  readonly etag: string;
}

/**
 * Every docs file may change with the installed swagger-ui-dist or the base path, and none has
 * a versioned URL: browsers revalidate each time, and an unchanged file costs a 304.
 */
export const STATIC_CACHE_CONTROL = 'no-cache';

export const staticFile = (body: Buffer, contentType: string): StaticFile => ({
  body,
  contentType,
  etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
});

/** RFC 9110 If-None-Match: `*` or a list of entity tags, compared weakly (a `W/` prefix is ignored). */
const matchesIfNoneMatch = (header: string | undefined, etag: string): boolean =>
  header !== undefined && header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || (trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === etag;
  });

/** 200 with the file, or 304 when the request's If-None-Match already names it; HEAD gets the same headers. */
export function sendStaticFile(ctx: RequestContext, file: StaticFile, extra: readonly string[] = []): void {
  const validators = ['etag', file.etag, 'cache-control', STATIC_CACHE_CONTROL, 'x-content-type-options', 'nosniff', ...extra];
  if (matchesIfNoneMatch(ctx.req.headers['if-none-match'], file.etag)) return sendNoBody(ctx, 304, validators);
  sendBody(ctx, 200, file.contentType, file.body, validators);
}
