import type { OperationDeclaration } from '../operation-declaration.js';
import { RATE_LIMIT_STATUS_RULE } from '../rate-limit-status-rule.js';
import { RateLimitStatusSchema } from '../schemas.js';
import { PET_STORE_ROUTE_OF } from '../pet-store-routes.js';

const perMinute = `${RATE_LIMIT_STATUS_RULE.limit} calls per rolling minute per key`;

export const getRateLimitDeclaration = {
  ...PET_STORE_ROUTE_OF.getRateLimit,
  auth: 'apiKey',
  tags: ['Quota'],
  summary: "Read the caller's quota without spending it",
  description:
    `The key's plan, each of its rules with its limit, remaining and reset, any ban's end, and its concurrency cap with the requests in flight under it when the plan has one. Reading counts nothing and strikes nothing, so a key that is out of quota or banned may read it too. ` +
    `Not counted against the plan; instead limited to ${perMinute}, past which it answers 429 \`rate_limited\` with Retry-After (never a strike). ` +
    `Its rate-limit fields advertise that rule, \`${RATE_LIMIT_STATUS_RULE.name}\`, beside the plan's rules as they stand, and X-RateLimit-* the binding one of them. Without a valid key: 401, counted per client address like any request.`,
  responses: {
    200: { description: "The caller's quota as it stands.", body: RateLimitStatusSchema },
    429: {
      description: `More than ${perMinute}, or, without a valid key, over the client address's rule; Retry-After says when it is answered again.`,
      errors: ['rate_limited'],
    },
  },
} as const satisfies OperationDeclaration;
