import type { CreditRule } from '../../../domain/credits/credit-rule.js';
import { ruleTermsOf } from '../../../domain/quota/plan-rules.js';
import type { CreditStanding } from '../../../ports/credit-ledger.js';
import { windowSeconds } from '../../../domain/quota/rate-limit-fields.js';
import type { Operation } from '../contract/operation.js';
import { getRateLimitDeclaration } from '../contract/declarations/get-rate-limit.js';
import type { RateLimitStatusBody } from '../contract/schemas.js';
import { sendJson, type QuotaStanding, type RequestContext } from '../wire/request-context.js';

type CreditsBody = NonNullable<RateLimitStatusBody['credits']>;

const refillOf = ({ refill }: CreditRule): Pick<CreditsBody, 'refill' | 'periodSeconds'> => {
  if (refill === undefined) return { refill: 'never' };
  return refill === 'month' ? { refill } : { refill: 'period', periodSeconds: Math.ceil(refill / 1000) };
};

const creditsBody = (rule: CreditRule, { balance, refillAt }: CreditStanding): CreditsBody => ({
  name: rule.name,
  balance,
  credits: rule.credits,
  ...refillOf(rule),
  refillAt: refillAt === undefined ? null : Math.ceil(refillAt / 1000),
  ...(rule.match === undefined ? {} : { match: [...rule.match] }),
  ...(rule.cost === undefined ? {} : { cost: rule.cost }),
  ...(rule.refund === undefined ? {} : { refund: [...rule.refund] }),
});

const statusBody = ({ plan, decision, inFlight, credits }: QuotaStanding): RateLimitStatusBody => ({
  plan: plan.name,
  rules: plan.rules.map((rule, i) => ({
    name: rule.name,
    limit: rule.limit,
    windowSeconds: windowSeconds(rule),
    remaining: decision.remaining[i] ?? 0,
    reset: Math.ceil((decision.resetAt[i] ?? decision.decidedAt) / 1000),
    ...ruleTermsOf(rule),
  })),
  // The ban's Retry-After points here too: the ban's end, or a rule's reset still to come then.
  bannedUntil: decision.verdict === 'banned' ? Math.ceil(decision.retryAt / 1000) : null,
  ...(plan.concurrency === undefined
    ? {}
    : {
        concurrency: {
          name: plan.concurrency.name,
          limit: plan.concurrency.limit,
          inFlight: inFlight ?? 0,
          ...(plan.concurrency.match === undefined ? {} : { match: [...plan.concurrency.match] }),
        },
      }),
  ...(plan.credits === undefined || credits === undefined ? {} : { credits: creditsBody(plan.credits, credits) }),
});

const standingOf = (ctx: RequestContext): QuotaStanding => {
  if (ctx.standing === undefined) throw new Error(`${ctx.req.method} ${ctx.req.url} reached the quota status without a standing`);
  return ctx.standing;
};

export const getRateLimit = {
  ...getRateLimitDeclaration,
  quotaStatus: true,
  handler: (ctx) => sendJson(ctx, 200, JSON.stringify(statusBody(standingOf(ctx)))),
} as const satisfies Operation;
