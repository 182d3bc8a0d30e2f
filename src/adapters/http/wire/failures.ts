import { RATE_LIMIT_FIELD_NAMES } from '../../../domain/quota/rate-limit-fields.js';
import { IdsExhaustedError, StoreUnavailableError, type DomainError } from '../../../domain/errors.js';
import { sendError, type RequestContext } from './request-context.js';

const RETRY_SOON = [RATE_LIMIT_FIELD_NAMES.retryAfter.toLowerCase(), '1'];

/** `requestId`: the X-Request-Id of the request that failed, when there is one. */
export type LogError = (message: string, error: unknown, requestId?: string) => void;

/** A refusal the domain decided: its code is an API error code, its message names the field. */
export const sendDomainError = (ctx: RequestContext, error: DomainError): void => sendError(ctx, error.code, error.message);

/**
 * What a thrown failure is answered with: an unreachable store is a 503 the client may retry;
 * ids run out, a 507 no retry helps; anything else is logged and answered 500 without a word of
 * its internals.
 */
export const answerFailure = (ctx: RequestContext, error: unknown, logError: LogError): void => {
  if (ctx.res.headersSent) {
    ctx.res.destroy();
    return;
  }
  if (error instanceof StoreUnavailableError) {
    if (ctx.trace !== undefined) ctx.trace.storeUnavailable = error.store;
    return sendError(ctx, 'service_unavailable', undefined, RETRY_SOON);
  }
  if (error instanceof IdsExhaustedError) return sendError(ctx, 'ids_exhausted');
  logError('request failed', error, ctx.requestId === '' ? undefined : ctx.requestId);
  sendError(ctx, 'internal_error');
};
