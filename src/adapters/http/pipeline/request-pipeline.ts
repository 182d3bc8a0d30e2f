import type { IncomingMessage, ServerResponse } from 'node:http';
// Imported: the global `performance` is a getter on globalThis, called on every use.
import { performance } from 'node:perf_hooks';
import { CONCURRENCY_RETRY_AFTER_S } from '../../../domain/quota/concurrency-rule.js';
import type { Admission, CreditUse, RequestAdmission, SlotUse } from '../../../domain/quota/request-admission.js';
import { cachedDigestApiKey, REMEMBERED_API_KEYS } from '../../api-key-digest.js';
import { pathOf, type ApiRouter, type RouteMatch } from './api-router.js';
import { bearerToken } from './bearer-token.js';
import type { Cors } from './cors.js';
import { answerFailure, type LogError } from '../wire/failures.js';
import type { Operation, OperationServices, ReadAnswer } from '../contract/operation.js';
import { writeRateLimitHeaders } from '../wire/rate-limit-headers.js';
import { createRequestContext, sendError, type RequestContext, type RequestTrace } from '../wire/request-context.js';
import { MAX_LOGGED_TEXT, type OnRequestFinished } from '../wire/request-finished.js';
import { requestIdOf, type RequestId } from '../wire/request-id.js';
import { credentialHeadersProblem } from './credential-headers.js';
import { refundOnceAnswered } from './answer-refunds.js';
import { refundCreditOnceAnswered } from './credit-refunds.js';
import type { RateLimitStatus } from './rate-limit-status.js';
import { endRequestSpan, recordAdmission, recordClient, SPAN_ATTRIBUTES, startRequestSpan } from './request-span.js';
import { loggedPath, requestTarget } from './request-target.js';
import type { RequestSpan, Tracer } from '../../../ports/tracer.js';
import { refuseUnrouted } from './unrouted.js';

const CHALLENGE = ['www-authenticate', 'Bearer'];
/** What Node itself takes for `Expect: 100-continue` (its continueExpression); any other expectation reaches the handler only through `checkExpectation`. */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;
const expectationFailed = (req: IncomingMessage): boolean => req.headers.expect !== undefined && !CONTINUE.test(req.headers.expect);
/** The key and plan reported for a request without a valid key. */
const ANONYMOUS = 'anonymous';
/** The rule names of a decision's would-be refusals: built only when a shadow rule had no room, so the common request allocates nothing. */
const shadowedNames = ({ policy, decision }: Admission): readonly string[] | null =>
  decision.shadowed === undefined ? null : decision.shadowed.map((index) => policy.rules[index]!.name);
/** The verdict a request refused by its plan's concurrency cap is traced with. */
const CONCURRENCY_LIMITED = 'concurrency_limited';
const CONCURRENCY_RETRY_AFTER = ['retry-after', String(CONCURRENCY_RETRY_AFTER_S)];
const CREDITS_EXHAUSTED = 'credits_exhausted';
/** Whole seconds to the refill, rounded up: a retry then finds the balance refilled. */
const retryAfterRefill = ({ refillAt, decidedAt }: CreditUse): string[] | undefined =>
  refillAt === undefined ? undefined : ['retry-after', String(Math.max(1, Math.ceil((refillAt - decidedAt) / 1000)))];
/** A refusal after the quota admitted: the verdict the request is reported with. */
const refusedAs = ({ trace, span }: RequestContext, verdict: string): void => {
  if (trace !== undefined) trace.verdict = verdict;
  span?.set(SPAN_ATTRIBUTES.verdict, verdict);
};
const creditsExhausted = ({ rule, balance, units, refillAt }: CreditUse): string =>
  `This API key's credits (${rule.name}) hold ${balance}; this request costs ${units}. ` +
  (refillAt === undefined ? 'They are never refilled: ask for a top-up.' : `They refill to ${rule.credits} at ${new Date(refillAt).toISOString()}, or when topped up.`);
// A release the store fails leaves a lease that expires on its own (ConcurrencySlots).
const releaseSlot = (slot: SlotUse): void => {
  const released = slot.release();
  if (released instanceof Promise) released.catch(() => undefined);
};
/** Hex digits of a key's digest the request-finished event shows: enough to tell keys apart, too few to matter. */
const KEY_DIGEST_SHOWN = 8;

export interface PipelineOptions {
  /** The address a caller without a valid key is limited by. */
  readonly clientAddress: (req: IncomingMessage) => string;
  /** Absent: CORS is off. */
  readonly cors: Cors | undefined;
  readonly logError: LogError;
  /** Told of every request once its connection is done with it; absent: nothing is traced. */
  readonly onFinished?: OnRequestFinished | undefined;
  /** Where each request's span goes; absent: no span is made, not even a no-op one. */
  readonly tracer?: Tracer | undefined;
}

export interface PipelineDependencies {
  readonly router: ApiRouter;
  readonly admission: RequestAdmission;
  readonly services: OperationServices;
  /** What a route declaring `quotaStatus` (GET /rate_limit) reads; such a route is served only with it. */
  readonly rateLimitStatus?: RateLimitStatus | undefined;
}

/** A host framework's next handler (express's `next`): where a request outside the API's base path goes. */
export type NextHandler = (error?: unknown) => void;

/**
 * Every request takes the same steps: route (404 and 405 still count against the caller's
 * quota), authenticate, decide the quota, write the rate-limit fields, then answer a refusal
 * or run the operation's handler.
 */
export function createAdmissionPipeline(
  deps: PipelineDependencies,
  options: PipelineOptions,
): (req: IncomingMessage, res: ServerResponse, next?: NextHandler) => void {
  const { router, admission, services, rateLimitStatus } = deps;
  const apiPrefix = `${services.basePath}/`;
  const outsideApi = (req: IncomingMessage): boolean => {
    const path = pathOf(requestTarget(req));
    return path !== services.basePath && !path.startsWith(apiPrefix);
  };
  const { cors, logError, onFinished, tracer } = options;
  const digestApiKey = cachedDigestApiKey(REMEMBERED_API_KEYS);

  const answer = (
    ctx: RequestContext,
    match: RouteMatch | null,
    headerProblem: string | undefined,
    admitted: Admission,
    readAhead?: Promise<ReadAnswer>,
  ): void => {
    const trace = ctx.trace;
    if (trace !== undefined) {
      trace.key = admitted.caller === undefined ? ANONYMOUS : admitted.caller.id.slice(0, KEY_DIGEST_SHOWN);
      trace.plan = admitted.plan?.name ?? ANONYMOUS;
      trace.verdict = admitted.decision.verdict;
      trace.shadowed = shadowedNames(admitted);
    }
    if (ctx.span !== undefined) recordAdmission(ctx.span, admitted, ANONYMOUS);
    const { refunds } = admitted;
    // Only a plan with refunding rules pays for a listener; only what was counted is given back.
    if (refunds !== undefined && admitted.decision.verdict === 'admitted') refundOnceAnswered(ctx, admitted, refunds, admission, logError);
    writeRateLimitHeaders(ctx.headers, admitted.policy, admitted.decision, admitted.costs);
    if (cors !== undefined) for (const header of cors.responseHeaders(ctx.req.headers.origin)) ctx.headers.push(header);

    const verdict = admitted.decision.verdict;
    const { slot } = admitted;
    // Refused by the cap, the quota was only peeked: a refusal it would give anyway is answered as such, with its longer Retry-After.
    if (slot?.granted === false && verdict === 'admitted') {
      refusedAs(ctx, CONCURRENCY_LIMITED);
      return sendError(ctx, 'concurrency_limited', undefined, CONCURRENCY_RETRY_AFTER);
    }
    // Held until the connection is done with the answer: written, or its client gone.
    if (slot?.granted === true) {
      if (ctx.res.closed) releaseSlot(slot);
      else ctx.res.on('close', () => releaseSlot(slot));
    }
    const { credit } = admitted;
    if (credit !== undefined) {
      if (!credit.granted) {
        refusedAs(ctx, CREDITS_EXHAUSTED);
        return sendError(ctx, CREDITS_EXHAUSTED, creditsExhausted(credit), retryAfterRefill(credit));
      }
      // Only an answer that may give credits back pays for a listener: one in the rule's refund classes, or an idempotent replay.
      if (credit.rule.refund !== undefined || (match?.kind === 'route' && match.route.operation.idempotent === true)) refundCreditOnceAnswered(ctx, credit, logError);
    }
    if (verdict === 'rate_limited') return sendError(ctx, 'rate_limited');
    if (verdict === 'banned') return sendError(ctx, 'api_key_banned');
    if (headerProblem !== undefined) return sendError(ctx, 'invalid_request', headerProblem);
    if (expectationFailed(ctx.req)) return sendError(ctx, 'expectation_failed');
    if (match === null) return refuseUnrouted(ctx, router, requestTarget(ctx.req));
    if (match.kind === 'bad_url') return sendError(ctx, 'invalid_request', 'The URL is malformed.');
    const { operation, queryNames } = match.route;
    if (operation.auth === 'apiKey' && admitted.plan === undefined) return sendError(ctx, 'unauthorized', undefined, CHALLENGE);
    for (const name in match.query) {
      if (!queryNames.includes(name)) return sendError(ctx, 'invalid_request', `Unknown query parameter: ${name}.`);
    }
    ctx.caller = admitted.caller;
    ctx.params = match.params;
    ctx.query = match.query;
    const done = readAhead === undefined ? operation.handler(ctx, services) : readAhead.then((send) => send(ctx));
    if (done instanceof Promise) done.catch((error: unknown) => answerFailure(ctx, error, logError));
  };

  /** A CORS preflight: answered before admission, counted nowhere (it carries no credentials and touches no store). */
  const answeredPreflight = (req: IncomingMessage, res: ServerResponse, match: RouteMatch | null, requestId: string): boolean => {
    if (cors === undefined || match !== null || req.method !== 'OPTIONS') return false;
    const headers = cors.preflight(req, router.allowedMethods(requestTarget(req)));
    if (headers === undefined) return false;
    res.writeHead(204, [...headers, 'x-request-id', requestId] as (string | number)[]);
    res.end();
    return true;
  };

  /** GET /rate_limit with a key: a valid one is decided by the route's own rule; any other is admitted as without a key. */
  const answerStatus = async (
    ctx: RequestContext,
    match: RouteMatch,
    headerProblem: string | undefined,
    status: RateLimitStatus,
    keyDigest: string,
    clientAddress: string,
  ): Promise<void> => {
    const read = await status.admit(keyDigest, clientAddress, ctx.span);
    if (read === undefined) return answer(ctx, match, headerProblem, await admission.admit(undefined, clientAddress, undefined, ctx.span));
    ctx.standing = read.standing;
    answer(ctx, match, headerProblem, read.admission);
  };

  /** Beside a remote quota decision: the operation's read, its failure held until the answer uses it. */
  const startReadAhead = (ctx: RequestContext, operation: Operation, query: Readonly<Record<string, unknown>>): Promise<ReadAnswer> | undefined => {
    if (operation.readAhead === undefined) return undefined;
    const read = operation.readAhead(query, services, ctx.span);
    read.catch(() => undefined);
    return read;
  };

  /** Attached per request only when the hook is set: without it the hot path allocates nothing more. */
  const traceRequest = (ctx: RequestContext, requestId: RequestId, report: OnRequestFinished): void => {
    const { req, res } = ctx;
    const trace: RequestTrace = {
      startedAt: performance.now(),
      requestId,
      method: req.method ?? 'GET',
      route: null,
      operation: null,
      status: 0,
      durationMs: 0,
      finishedAt: 0,
      completed: false,
      path: loggedPath(req, MAX_LOGGED_TEXT),
      bytes: 0,
      client: req.socket.remoteAddress ?? '',
      userAgent: req.headers['user-agent']?.slice(0, MAX_LOGGED_TEXT) ?? null,
      key: ANONYMOUS,
      plan: ANONYMOUS,
      verdict: null,
      shadowed: null,
      refunded: null,
      refundLost: null,
      storeUnavailable: null,
    };
    ctx.trace = trace;
    // `on`, not `once`: a response closes once, and once's wrapper and removal cost more than the listener.
    res.on('close', () => {
      trace.status = res.statusCode;
      trace.durationMs = performance.now() - trace.startedAt;
      trace.finishedAt = Date.now();
      trace.completed = res.writableFinished;
      // A refund's outcome goes on the event too: told once the store has answered it.
      if (ctx.refunding === undefined) report(trace);
      else ctx.refunding.then(() => report(trace)).catch((error: unknown) => logError('request-finished hook failed', error, requestId));
    });
  };

  /** From the route on: a preflight, or authenticate and decide the quota, then answer. */
  const admit = (ctx: RequestContext, match: RouteMatch | null): void => {
    if (answeredPreflight(ctx.req, ctx.res, match, ctx.requestId)) return;
    const headerProblem = credentialHeadersProblem(ctx.req);
    const token = headerProblem === undefined ? bearerToken(ctx.req.headers.authorization) : undefined;
    const keyDigest = token === undefined ? undefined : digestApiKey(token);
    const clientAddress = options.clientAddress(ctx.req);
    if (ctx.trace !== undefined) ctx.trace.client = clientAddress;
    if (ctx.span !== undefined) recordClient(ctx.span, clientAddress);
    if (keyDigest !== undefined && rateLimitStatus !== undefined && match?.kind === 'route' && match.route.operation.quotaStatus === true) {
      answerStatus(ctx, match, headerProblem, rateLimitStatus, keyDigest, clientAddress).catch((error: unknown) => answerFailure(ctx, error, logError));
      return;
    }
    const admitted = admission.admit(keyDigest, clientAddress, match?.kind === 'route' ? match.route.operation.operationId : undefined, ctx.span);
    if (admitted instanceof Promise) {
      // Only for a caller presenting a key: without one, an operation that needs a key answers 401 whatever was read.
      const readAhead = token !== undefined && match?.kind === 'route' ? startReadAhead(ctx, match.route.operation, match.query) : undefined;
      admitted.then((decided) => answer(ctx, match, headerProblem, decided, readAhead)).catch((error: unknown) => answerFailure(ctx, error, logError));
    } else {
      answer(ctx, match, headerProblem, admitted);
    }
  };

  /** Ended once the connection is done with the request, and a refund's store call with it. */
  const endSpanWhenDone = (ctx: RequestContext, span: RequestSpan): void => {
    ctx.res.on('close', () => {
      if (ctx.refunding === undefined) return endRequestSpan(span, ctx.res);
      const end = (): void => endRequestSpan(span, ctx.res);
      ctx.refunding.then(end, end);
    });
  };

  return (req, res, next) => {
    // Mounted with a next handler, a path that is not the API's is the host's: no quota spent, nothing written.
    if (next !== undefined && outsideApi(req)) return next();
    const ctx = createRequestContext(req, res);
    // Node drops whatever was pipelined behind an Upgrade request in the same read: closing tells the client to send it again.
    if (req.headers.upgrade !== undefined) res.shouldKeepAlive = false;
    const requestId = requestIdOf(req.headers['x-request-id']);
    ctx.requestId = requestId;
    ctx.headers.push('x-request-id', requestId);
    if (onFinished !== undefined) traceRequest(ctx, requestId, onFinished);
    try {
      const match = router.find(req.method ?? 'GET', requestTarget(req));
      if (match?.kind === 'route') {
        // Before anything can fail: a route's headers (getPet's deprecation) are on every answer, a 503 of the quota store's too.
        for (const header of match.route.headers) ctx.headers.push(header);
        if (ctx.trace !== undefined) {
          ctx.trace.route = match.route.operation.path;
          ctx.trace.operation = match.route.operation.operationId;
        }
      }
      const span = tracer === undefined ? undefined : startRequestSpan(tracer, req, match);
      if (span !== undefined) {
        ctx.span = span;
        endSpanWhenDone(ctx, span);
      }
      admit(ctx, match);
    } catch (error) {
      answerFailure(ctx, error, logError);
    }
  };
}
