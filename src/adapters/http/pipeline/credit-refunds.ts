import { StoreUnavailableError } from '../../../domain/errors.js';
import type { CreditRule } from '../../../domain/credits/credit-rule.js';
import type { CreditUse } from '../../../domain/quota/request-admission.js';
import { refundedStatusesOf } from '../../../domain/quota/rule-refunds.js';
import type { LogError } from '../wire/failures.js';
import { refundBeforeReport, type RequestContext } from '../wire/request-context.js';

const NONE: ReadonlySet<number> = new Set();
/** Each credit rule's refunded statuses, made once per rule. */
const refundedStatuses = new WeakMap<CreditRule, ReadonlySet<number>>();
const statusesRefunded = (rule: CreditRule): ReadonlySet<number> => {
  if (rule.refund === undefined) return NONE;
  let statuses = refundedStatuses.get(rule);
  if (statuses === undefined) {
    statuses = refundedStatusesOf(rule.refund);
    refundedStatuses.set(rule, statuses);
  }
  return statuses;
};

/**
 * Once the answer to a request that spent `credit` is written, gives its units back when that
 * answer replays an idempotent request's first (the first paid) or has a status the credits
 * refund: as the quota rules' refunds (answer-refunds.ts), off the answer's path, its outcome
 * marked in the request-finished event beside theirs. A connection closed before the status was
 * sent refunds nothing.
 */
export const refundCreditOnceAnswered = (ctx: RequestContext, credit: CreditUse, logError: LogError): void => {
  const { res } = ctx;
  const statuses = statusesRefunded(credit.rule);
  // Before the trace's own listener, which waits for the refund's outcome.
  res.prependListener('close', () => {
    if (!res.headersSent || !(ctx.replayed || statuses.has(res.statusCode))) return;
    const name = credit.rule.name;
    const mark = (field: 'refunded' | 'refundLost'): void => {
      if (ctx.trace !== undefined) ctx.trace[field] = [...(ctx.trace[field] ?? []), name];
    };
    const lost = (error: unknown): void => {
      mark('refundLost');
      if (!(error instanceof StoreUnavailableError)) logError('credit refund failed', error, ctx.requestId);
    };
    try {
      const sent = credit.refund();
      if (!(sent instanceof Promise)) return mark('refunded');
      refundBeforeReport(ctx, sent.then(() => mark('refunded'), lost));
    } catch (error) {
      lost(error);
    }
  });
};
