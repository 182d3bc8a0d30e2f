import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { StoreUnavailableError } from '../../../domain/errors.js';
import type { RateLimitCheck, RateLimiter } from '../../../domain/quota/rate-limiter.js';
import { RATE_LIMIT_FIELD_NAMES } from '../../../domain/quota/rate-limit-fields.js';
import { ANSWER_CLASS_SHAPE, statusesOf } from '../../../domain/quota/rule-refunds.js';
import { errorBody, HTTP_ERRORS } from '../wire/http-errors.js';

/** What a refused request is answered: by default the service's own 429 in the Error format. */
export interface Refusal {
  readonly status: number;
  readonly body: unknown;
}

/**
 * `Req` is the request the host hands its middleware: express's `Request` (with whatever its
 * authentication left on it, `req.user`), fastify's `FastifyRequest` for the hook, node's
 * `IncomingMessage` by default. Name it as the type argument: `rateLimitMiddleware<AuthedRequest>({ ... })`.
 */
export interface RateLimitMiddlewareOptions<Req = IncomingMessage> {
  /** The exact sliding windows, bans, store and subject overrides: `createRateLimiter({ rules, store, ban, overrides })`. */
  readonly limiter: RateLimiter;
  /**
   * Whom a request counts against, the subject the limiter's overrides match. Default its client
   * address: express's `req.ip` or fastify's `request.ip` where the host sets one (each follows
   * its framework's `trust proxy`), else the socket's peer.
   */
  readonly key?: (req: Req) => string;
  /** Requests the limiter leaves alone: not counted, no fields written. */
  readonly skip?: (req: Req) => boolean;
  /** How many units a request spends (default 1): a whole number up to the smallest limit its subject gets, else the request fails with a RangeError. */
  readonly cost?: (req: Req) => number;
  /** The answer to a refused request (the rate-limit fields and Retry-After are written whatever it is). */
  readonly refusal?: (check: RateLimitCheck, req: Req) => Refusal;
  /**
   * The answers whose requests get their cost back once written: answer classes (`"5xx"`) and
   * statuses (`"404"`), as a plan rule's `refund`. `["5xx"]` is express-rate-limit's
   * skipFailedRequests for the server's own failures, exact across instances on a shared store.
   */
  readonly refund?: readonly string[];
  /**
   * What a request gets while the limiter's store cannot answer (StoreUnavailableError):
   * `'deny'` (default) a 503 with Retry-After, `'allow'` passes it on uncounted and unmarked
   * (fail open). To decide on the instance's own memory instead, wrap the limiter's store in
   * `new QuotaOutageFallback(store, 'local', new MemoryQuotaStore(clock), clock)`: there the
   * limiter's overrides and bans still apply.
   */
  readonly onStoreUnavailable?: 'deny' | 'allow';
}

/** The host's client address where it keeps one (express's `req.ip`, fastify's `request.ip`: after their proxy settings), else the socket's peer. */
const defaultKey = (req: unknown): string => {
  const { ip, socket, raw } = req as { ip?: unknown; socket?: IncomingMessage['socket']; raw?: IncomingMessage };
  if (typeof ip === 'string' && ip !== '') return ip;
  return (socket ?? raw?.socket)?.remoteAddress ?? 'unknown';
};

/** The service's own answers, in its Error format as the wire writes it, built once. */
const serviceRefusal = (code: 'rate_limited' | 'api_key_banned' | 'service_unavailable', message?: string): Refusal => ({
  status: HTTP_ERRORS[code].status,
  body: JSON.parse(errorBody(code, message)) as unknown,
});
const RATE_LIMITED = serviceRefusal('rate_limited');
// The service's code, which clients know; the message names no API key: a subject here is whatever `key` returns.
const BANNED = serviceRefusal('api_key_banned', 'This client is temporarily banned for sending requests while rate limited.');
const UNAVAILABLE = serviceRefusal('service_unavailable');

const defaultRefusal = (check: RateLimitCheck): Refusal => (check.decision.verdict === 'banned' ? BANNED : RATE_LIMITED);

/** What to write for one request: undefined to pass it on, else the answer. */
type LimitOutcome =
  | { readonly pass: true; readonly headers: Readonly<Record<string, string>>; readonly counted: Counted }
  | { readonly pass: false; readonly headers: Readonly<Record<string, string>>; readonly refusal: Refusal };

/** An admitted request, as a refund needs it. */
interface Counted {
  readonly subject: string;
  readonly cost: number;
  readonly check: RateLimitCheck;
}

/** Checks what the type system cannot in a JavaScript host: the outage policy is one the middleware applies. */
function checkedOptions<Req>(options: RateLimitMiddlewareOptions<Req>): RateLimitMiddlewareOptions<Req> {
  const policy: unknown = options.onStoreUnavailable;
  if (policy !== undefined && policy !== 'deny' && policy !== 'allow') {
    throw new RangeError(
      `rate limit middleware: onStoreUnavailable must be 'deny' or 'allow', not ${JSON.stringify(policy)};` +
        " for 'local', wrap the limiter's store in QuotaOutageFallback(store, 'local', new MemoryQuotaStore(clock), clock)",
    );
  }
  return options;
}

/** The statuses `refund` names; undefined without refunds. Throws a RangeError on what is no answer class. */
function refundedStatuses(refund: readonly string[] | undefined): ReadonlySet<number> | undefined {
  if (refund === undefined) return undefined;
  const statuses = new Set<number>();
  for (const answers of refund) {
    const named = typeof answers === 'string' ? statusesOf(answers) : [];
    if (named.length === 0) throw new RangeError(`rate limit middleware: refund ${JSON.stringify(answers)} is not an answer class; expected ${ANSWER_CLASS_SHAPE}`);
    for (const status of named) statuses.add(status);
  }
  return statuses;
}

/** Once `res` is written with a status of `statuses`, gives the request's cost back; a refund the store cannot take leaves it spent. */
function refundOnceWritten(res: ServerResponse, statuses: ReadonlySet<number>, limiter: RateLimiter, { subject, cost, check }: Counted): void {
  res.once('finish', () => {
    if (!statuses.has(res.statusCode)) return;
    const refunded = limiter.refund(subject, check, cost);
    if (refunded instanceof Promise) refunded.catch(() => undefined);
  });
}

/** The limiter's verdict on one request, as headers and an answer; a store that cannot answer is a 503 with Retry-After. */
async function decide<Req>(options: RateLimitMiddlewareOptions<Req>, req: Req): Promise<LimitOutcome | undefined> {
  if (options.skip?.(req) === true) return undefined;
  let check: RateLimitCheck;
  const subject = (options.key ?? defaultKey)(req);
  const cost = options.cost?.(req) ?? 1;
  try {
    check = await options.limiter.check(subject, cost);
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    if (options.onStoreUnavailable === 'allow') return undefined;
    return { pass: false, headers: { [RATE_LIMIT_FIELD_NAMES.retryAfter]: '1' }, refusal: UNAVAILABLE };
  }
  const headers = check.headers as Readonly<Record<string, string>>;
  if (check.allowed) return { pass: true, headers, counted: { subject, cost, check } };
  return { pass: false, headers, refusal: (options.refusal ?? defaultRefusal)(check, req) };
}

// NoInfer: a host's route types are no guess at Req (fastify's would make it never); the default or the type argument is.
/**
 * The quota engine as an express (or connect, or node:http) middleware: `app.use(limit)` for
 * every route, `app.get('/search', limit, handler)` for one. Admitted requests get the
 * rate-limit fields and go on; refused ones are answered here.
 */
export function rateLimitMiddleware<Req extends IncomingMessage = IncomingMessage>(
  options: RateLimitMiddlewareOptions<Req>,
): (req: NoInfer<Req>, res: ServerResponse, next: (error?: unknown) => void) => void {
  checkedOptions(options);
  const refunded = refundedStatuses(options.refund);
  return (req, res, next) => {
    decide(options, req).then((outcome) => {
      if (outcome === undefined) return next();
      for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
      if (outcome.pass) {
        if (refunded !== undefined) refundOnceWritten(res, refunded, options.limiter, outcome.counted);
        return next();
      }
      res.statusCode = outcome.refusal.status;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(outcome.refusal.body));
    }, next);
  };
}

/** The parts of a fastify request and reply the hook uses (fastify itself is not loaded). */
export interface HookRequest {
  readonly raw: IncomingMessage;
  readonly headers: IncomingHttpHeaders;
  readonly url: string;
  readonly method: string;
  /** The client address after fastify's `trustProxy`: the default key. */
  readonly ip: string;
}
export interface HookReply {
  /** fastify's own; what a `refund` watches for the answer's status. */
  readonly raw?: ServerResponse;
  header(name: string, value: string): unknown;
  code(status: number): HookReply;
  send(payload: unknown): unknown;
}

/**
 * The same as an `onRequest` hook for fastify: `fastify.addHook('onRequest', hook)` for every
 * route, or `{ onRequest: hook }` in one route's options. `key`, `skip`, `cost` and `refusal`
 * get fastify's request (`rateLimitHook<FastifyRequest>`), not its raw IncomingMessage.
 */
export function rateLimitHook<Req extends HookRequest = HookRequest>(
  options: RateLimitMiddlewareOptions<Req>,
): (request: NoInfer<Req>, reply: HookReply) => Promise<void> {
  checkedOptions(options);
  const refunded = refundedStatuses(options.refund);
  return async (request, reply) => {
    const outcome = await decide(options, request);
    if (outcome === undefined) return;
    for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
    if (!outcome.pass) await reply.code(outcome.refusal.status).send(outcome.refusal.body);
    else if (refunded !== undefined) {
      if (reply.raw === undefined) throw new TypeError('rate limit hook: a refund needs the reply\'s raw response (fastify\'s reply.raw)');
      refundOnceWritten(reply.raw, refunded, options.limiter, outcome.counted);
    }
  };
}
