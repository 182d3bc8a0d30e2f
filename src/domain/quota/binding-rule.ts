import type { QuotaDecision } from './quota-decision.js';
import type { QuotaRule } from './quota-rule.js';

/**
 * The rule the X-RateLimit-* headers describe: the one with the fewest remaining, on a tie
 * the shorter window, then the first. -1 when the policy has no rule.
 */
export const bindingRuleIndex = (decision: QuotaDecision, rules: readonly QuotaRule[]): number => {
  let best = rules.length === 0 ? -1 : 0;
  for (let i = 1; i < rules.length; i++) {
    const remaining = decision.remaining[i]!;
    const bestRemaining = decision.remaining[best]!;
    if (remaining < bestRemaining || (remaining === bestRemaining && rules[i]!.windowMs < rules[best]!.windowMs)) {
      best = i;
    }
  }
  return best;
};
