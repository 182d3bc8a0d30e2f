import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../../../domain/access/caller.js';
import type { Plan } from '../../../domain/quota/plan.js';
import type { QuotaDecision } from '../../../domain/quota/quota-decision.js';
import type { CreditStanding } from '../../../ports/credit-ledger.js';
import type { RequestSpan } from '../../../ports/tracer.js';
import { errorBody, HTTP_ERRORS, type HttpErrorCode } from './http-errors.js';
import type { RequestFinishedEvent } from './request-finished.js';
import { REFUSED_BODY_DRAIN } from './request-limits.js';

/** Header names and values, alternating: what `writeHead` takes without building an object. */
export type HeaderList = (string | number)[];

/** A key's quota under its plan as it stands, read without counting: what GET /rate_limit reports. */
export interface QuotaStanding {
  /** Its rules are the policy the decision was read under, indexed alike. */
  readonly plan: Plan;
  /** A peek: `remaining` is each rule's room now. */
  readonly decision: QuotaDecision;
  /** The key's requests in flight under its plan's concurrency cap; absent when the plan has none. */
  readonly inFlight?: number;
  /** The key's credits; absent when its plan has none. */
  readonly credits?: CreditStanding;
}

/** One request on its way through the pipeline, passed explicitly to every step that answers it. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Headers of whatever answer is sent, decided before it (rate-limit fields, route and CORS headers). */
  readonly headers: HeaderList;
  /** Who sent it: set for a request with a valid API key. */
  caller: Caller | undefined;
  params: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, unknown>>;
  /** Set for a request of GET /rate_limit with a valid key: its rate-limit fields and its answer describe this. */
  standing: QuotaStanding | undefined;
  /** Set once the request body has been read to its end. */
  bodyRead: boolean;
  /** The request's X-Request-Id (the caller's, or generated); empty until the pipeline sets it. */
  requestId: string;
  /** What the request-finished hook reports; undefined unless the hook is set. */
  trace: RequestTrace | undefined;
  /** The request's OpenTelemetry span; undefined unless tracing is on. */
  span: RequestSpan | undefined;
  /** A refund of the request on its way to the store, once answered: the request-finished hook is told after it. */
  refunding: Promise<void> | undefined;
  /** Set when the answer replays an idempotent request's first: it spends no credit. */
  replayed: boolean;
}

/**
 * The request-finished event itself, filled in along the pipeline and handed to the hook once
 * the connection is done with the request: one object per request, not a trace and then an event.
 */
export type RequestTrace = { -readonly [Field in keyof RequestFinishedEvent]: RequestFinishedEvent[Field] } & {
  /** performance.now() when the request reached the pipeline. */
  readonly startedAt: number;
};

const NO_VALUES: Readonly<Record<string, never>> = Object.freeze({});

export const createRequestContext = (req: IncomingMessage, res: ServerResponse): RequestContext => ({
  req,
  res,
  headers: [],
  caller: undefined,
  params: NO_VALUES,
  query: NO_VALUES,
  standing: undefined,
  bodyRead: false,
  requestId: '',
  trace: undefined,
  span: undefined,
  refunding: undefined,
  replayed: false,
});

/** A refund the request-finished hook waits for, beside any already on its way. */
export const refundBeforeReport = (ctx: RequestContext, refund: Promise<void>): void => {
  ctx.refunding = ctx.refunding === undefined ? refund : Promise.all([ctx.refunding, refund]).then(() => undefined);
};

/** The caller of an operation that requires a key: the pipeline refuses the request before the handler without one. */
export const authenticatedCaller = (ctx: RequestContext): Caller => {
  if (ctx.caller === undefined) throw new Error(`${ctx.req.method} ${ctx.req.url} reached a handler that requires a key without one`);
  return ctx.caller;
};

/** A path parameter of the matched route (the router sets every one its path declares); '' when the route declares none, refused as an id. */
export const pathParameter = (ctx: RequestContext, name: string): string => ctx.params[name] ?? '';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Whether the request carries a body: a length other than 0, or a chunked one. */
export const hasBody = (req: IncomingMessage): boolean => {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
};

/** Whether `name` is already in the list: an answer that asks for `connection: close` itself gets it once. */
const hasField = (headers: HeaderList, name: string): boolean => {
  for (let i = 0; i < headers.length; i += 2) if (headers[i] === name) return true;
  return false;
};

/**
 * The connection of an answer sent before its body was read reads what is left of the body for a
 * bounded while, throwing it away, then closes (REFUSED_BODY_DRAIN: up to 1 MiB or 1 s from the
 * answer, less if the body ends first). Node would instead close as soon as the answer is written
 * (its `destroySoon`): the client, still sending, is answered by a reset, and loses the answer if
 * the reset reaches it before it has read it. Reading on until the whole body came would let a
 * client make the server read as many bytes as it likes.
 */
const drainThenClose = (ctx: RequestContext): void => {
  const { req, res } = ctx;
  const socket = req.socket;
  const from = socket.bytesRead;
  let answered = false;
  let drained = false;
  let timer: NodeJS.Timeout | undefined;
  const close = (): void => {
    drained = true;
    // Not before the answer has been handed over: a close now would cut it.
    if (!answered) return;
    clearTimeout(timer);
    socket.destroy();
  };
  // The answer says Connection: close, on which Node ends the connection once it is written; here it only half-closes (FIN), and close() ends it.
  socket.destroySoon = () => socket.end();
  res.once('finish', () => {
    answered = true;
    if (drained) return close();
    timer = setTimeout(close, REFUSED_BODY_DRAIN.ms);
  });
  socket.once('close', () => clearTimeout(timer));
  // Whoever was reading the body (a refused JSON body) stops: what comes now is thrown away.
  req.removeAllListeners('data');
  req.on('data', () => {
    if (socket.bytesRead - from >= REFUSED_BODY_DRAIN.bytes) close();
  });
  req.once('end', close);
  req.resume();
};

export function sendJson(ctx: RequestContext, status: number, body: string, extra?: readonly (string | number)[]): void {
  sendBody(ctx, status, JSON_TYPE, body, extra);
}

// The string body last measured and its length in bytes: one sent again (a kept page, the refusal
// of a flood) is not measured again, which reads every character.
let lastBody = '';
let lastBodyBytes = 0;

const byteLengthOf = (body: string | Buffer): number => {
  if (typeof body !== 'string') return body.length;
  if (body !== lastBody) {
    lastBody = body;
    lastBodyBytes = Buffer.byteLength(body);
  }
  return lastBodyBytes;
};

/** An answer of any media type (the docs page and its files); JSON goes through sendJson. */
export function sendBody(ctx: RequestContext, status: number, contentType: string, body: string | Buffer, extra?: readonly (string | number)[]): void {
  const headers = ctx.headers;
  if (extra !== undefined) for (let i = 0; i < extra.length; i++) headers.push(extra[i]!);
  const bytes = byteLengthOf(body);
  headers.push('content-type', contentType, 'content-length', bytes);
  if (ctx.trace !== undefined) ctx.trace.bytes = bytes;
  writeHead(ctx, status);
  ctx.res.end(body);
}

/** An answer without a body or Content-Length (a 304 stands for a body it does not repeat). */
export function sendNoBody(ctx: RequestContext, status: number, extra: readonly (string | number)[]): void {
  for (const value of extra) ctx.headers.push(value);
  writeHead(ctx, status);
  ctx.res.end();
}

function writeHead(ctx: RequestContext, status: number): void {
  const headers = ctx.headers;
  // An answer sent before the body was read closes the connection: reading the rest only to
  // find the next request could cost any amount of bytes the client chooses (see drainThenClose).
  const unread = !ctx.bodyRead && hasBody(ctx.req);
  if (unread && !hasField(headers, 'connection')) headers.push('connection', 'close');
  ctx.res.writeHead(status, headers);
  if (unread) drainThenClose(ctx);
}

export function sendError(ctx: RequestContext, code: HttpErrorCode, message?: string, extra?: readonly (string | number)[]): void {
  sendJson(ctx, HTTP_ERRORS[code].status, errorBody(code, message), extra);
}
