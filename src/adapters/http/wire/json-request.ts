import { isJsonContentType, readJsonBody } from './json-body.js';
import { sendError, type RequestContext } from './request-context.js';

const CLOSE = ['connection', 'close'];

export interface JsonRequest {
  readonly value: unknown;
  /** The body as sent. */
  readonly bytes: Buffer;
}

/** The JSON body of a request that must carry one; undefined once a 415, 413 or 400 has been answered. */
export async function readJsonRequest(ctx: RequestContext): Promise<JsonRequest | undefined> {
  if (!isJsonContentType(ctx.req.headers['content-type'])) {
    sendError(ctx, 'unsupported_media_type');
    return undefined;
  }
  const body = await readJsonBody(ctx);
  if (body.ok) return body;
  sendError(ctx, body.code, body.message, body.code === 'payload_too_large' ? CLOSE : undefined);
  return undefined;
}
