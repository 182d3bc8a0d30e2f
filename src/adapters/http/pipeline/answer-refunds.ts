import { StoreUnavailableError } from '../../../domain/errors.js';
import type { QuotaRule, RuleCosts } from '../../../domain/quota/quota-rule.js';
import type { Admission, RequestAdmission } from '../../../domain/quota/request-admission.js';
import { refundUnits, type PlanRefunds } from '../../../domain/quota/rule-refunds.js';
import type { LogError } from '../wire/failures.js';
import { refundBeforeReport, type RequestContext } from '../wire/request-context.js';

const namesOf = (rules: readonly QuotaRule[], units: RuleCosts): string[] => rules.filter((_, i) => units[i]! > 0).map((rule) => rule.name);

/**
 * Once the answer to `admitted` (a request counted under a plan whose rules refund some
 * answers: `refunds`, its own) is written, its status known, gives back what it spent under
 * the rules refunding that status: off the answer's path, in the store that counted it. The
 * request-finished event names those rules in `refunded`, or in `refundLost` when the store
 * could not take the refund (the cost stays spent: it is never given where it was not
 * counted); the hook is told once the outcome is known. A connection closed before the status
 * was sent refunds nothing.
 */
export const refundOnceAnswered = (ctx: RequestContext, admitted: Admission, refunds: PlanRefunds, admission: RequestAdmission, logError: LogError): void => {
  const { res } = ctx;
  // Before the trace's own listener, which waits for the refund's outcome.
  res.prependListener('close', () => {
    if (!res.headersSent) return;
    const units = refundUnits(refunds, admitted.costs, res.statusCode);
    if (units === undefined) return;
    const names = namesOf(admitted.policy.rules, units);
    const lost = (error: unknown): void => {
      if (ctx.trace !== undefined) ctx.trace.refundLost = names;
      // An outage is the store outage log's to tell, once; anything else is a fault of its own.
      if (!(error instanceof StoreUnavailableError)) logError('quota refund failed', error, ctx.requestId);
    };
    const refunded = (): void => {
      if (ctx.trace !== undefined) ctx.trace.refunded = names;
    };
    try {
      const sent = admission.refund(admitted, units, ctx.span);
      if (sent instanceof Promise) refundBeforeReport(ctx, sent.then(refunded, lost));
      else refunded();
    } catch (error) {
      lost(error);
    }
  });
};
