import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, HTTP_ERRORS, type HttpErrorCode } from './http-errors.js';

/** Header names and values, alternating: what `writeHead` takes without building an object. */
export type HeaderList = (string | number)[];

/** One request on its way through the pipeline, passed explicitly to every step that answers it. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Headers of whatever answer is sent, decided before it (rate-limit fields, route and CORS headers). */
  readonly headers: HeaderList;
  params: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, unknown>>;
  /** Set once the request body has been read to its end. */
  bodyRead: boolean;
}

const NO_VALUES: Readonly<Record<string, never>> = Object.freeze({});

export const createRequestContext = (req: IncomingMessage, res: ServerResponse): RequestContext => ({
  req,
  res,
  headers: [],
  params: NO_VALUES,
  query: NO_VALUES,
  bodyRead: false,
});

const JSON_TYPE = 'application/json; charset=utf-8';

const hasBody = (req: IncomingMessage): boolean => {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
};

export function sendJson(ctx: RequestContext, status: number, body: string, extra?: readonly (string | number)[]): void {
  const headers = ctx.headers;
  if (extra !== undefined) for (let i = 0; i < extra.length; i++) headers.push(extra[i]!);
  // An answer sent before the body was read closes the connection: reading the rest only to
  // find the next request could cost any amount of bytes the client chooses.
  if (!ctx.bodyRead && hasBody(ctx.req)) headers.push('connection', 'close');
  headers.push('content-type', JSON_TYPE, 'content-length', Buffer.byteLength(body));
  ctx.res.writeHead(status, headers);
  ctx.res.end(body);
}

export function sendError(ctx: RequestContext, code: HttpErrorCode, message?: string, extra?: readonly (string | number)[]): void {
  sendJson(ctx, HTTP_ERRORS[code].status, errorBody(code, message), extra);
}
