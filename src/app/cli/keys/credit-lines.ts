import type { CreditRule } from '../../../domain/credits/credit-rule.js';
import type { CreditStanding } from '../../../ports/credit-ledger.js';
import type { CreditsRefusal, KeyCreditStanding } from '../../keys/key-credits.js';
import { periodText } from '../../keys/usage-export.js';
import type { CommandOutput } from '../command-output.js';
import { refused, windowText } from './key-lines.js';

/** `monthly: 1000 each calendar month (UTC), initial 100`; `trial: 50, never refilled`. */
export const creditRuleText = ({ name, credits, initial, refill }: CreditRule): string =>
  `${name}: ${credits}${refill === undefined ? ', never refilled' : refill === 'month' ? ' each calendar month (UTC)' : ` every ${windowText(refill)}`}` +
  (initial === undefined ? '' : `, initial ${initial}`);

/** The balance and when it refills next: `40, of the period from 2026-11-01; refilled up to 100 at 2026-12-01T00:00:00.000Z`. */
export const balanceText = (rule: CreditRule, { balance, period, refillAt }: CreditStanding): string =>
  `${balance}${rule.refill === undefined ? '' : `, of the period from ${periodText(period)}`}; ` +
  (refillAt === undefined ? 'never refilled' : `refilled up to ${rule.credits} at ${new Date(refillAt).toISOString()}`);

/** A key's credits as `credits` prints them. */
export function printCredits({ key, rule, standing }: KeyCreditStanding, output: CommandOutput): void {
  output.out(`id:      ${key.id}`);
  output.out(`credits: ${creditRuleText(rule)}`);
  output.out(`balance: ${standing.balance}`);
  output.out(`period:  ${rule.refill === undefined ? '- (never refilled)' : `from ${periodText(standing.period)}`}`);
  output.out(`refill:  ${standing.refillAt === undefined ? 'never' : `${new Date(standing.refillAt).toISOString()}, up to ${rule.credits}`}`);
}

/** The refusal of a credit verb that read or changed nothing, exit 1. */
export function refusedCredits(id: string, refusal: CreditsRefusal, output: CommandOutput): number {
  if (refusal === 'not_found') return refused(id, refusal, output);
  output.err(`petstore keys: the plan of ${id} carries no credits, so it has no balance: nothing read or changed (petstore keys show ${id} shows its plan)`);
  return 1;
}
