import { MINUTE_MS } from '../../../domain/quota/plan.js';
import type { QuotaRule } from '../../../domain/quota/quota-rule.js';

/**
 * What GET /rate_limit is counted against instead of the caller's plan: a rule of its own per
 * key, so reading the quota never spends it, yet cannot be sent in a loop to load the stores.
 * Named apart from the plan's rules, beside which its rate-limit fields advertise it.
 */
export const RATE_LIMIT_STATUS_RULE: QuotaRule = { name: 'rate_limit', limit: 10, windowMs: MINUTE_MS };
