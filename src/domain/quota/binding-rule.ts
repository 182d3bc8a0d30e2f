import type { QuotaDecision } from './quota-decision.js';
import type { QuotaRule, RuleCosts } from './quota-rule.js';

/**
 * Whether the rate-limit fields advertise rule `i` of a request that spent `costs`: an enforced
 * rule the request matched. A shadow rule never refuses, and a rule the request did not match
 * said nothing of it.
 */
export const isAdvertised = (rules: readonly QuotaRule[], costs: number | RuleCosts, i: number): boolean =>
  rules[i]!.mode !== 'shadow' && (typeof costs === 'number' || costs[i]! > 0);

/**
 * The rule the X-RateLimit-* headers describe, of those advertised (isAdvertised; every rule
 * when `costs` is a number and none is a shadow): the one with the fewest remaining, on a tie
 * the shorter window, then the first. -1 when none is.
 */
export const bindingRuleIndex = (decision: QuotaDecision, rules: readonly QuotaRule[], costs: number | RuleCosts = 1): number => {
  let best = -1;
  for (let i = 0; i < rules.length; i++) {
    if (!isAdvertised(rules, costs, i)) continue;
    if (best === -1) {
      best = i;
      continue;
    }
    const remaining = decision.remaining[i]!;
    const bestRemaining = decision.remaining[best]!;
    if (remaining < bestRemaining || (remaining === bestRemaining && rules[i]!.windowMs < rules[best]!.windowMs)) {
      best = i;
    }
  }
  return best;
};
