import type { HttpErrorCode } from './http-errors.js';
import { IDENTITY_CODING, isJsonContentType, readJsonBody } from './json-body.js';
import { sendError, type RequestContext } from './request-context.js';

/** Fields of a refused body's answer: a 413 closes the connection, a 415 of a coding names the one accepted (RFC 9110 §15.5.16). */
const REFUSAL_FIELDS: Partial<Record<HttpErrorCode, readonly string[]>> = {
  payload_too_large: ['connection', 'close'],
  unsupported_media_type: ['accept-encoding', IDENTITY_CODING],
};

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
  sendError(ctx, body.code, body.message, REFUSAL_FIELDS[body.code]);
  return undefined;
}
