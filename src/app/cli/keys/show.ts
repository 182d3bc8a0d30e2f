import { standingView } from '../../../adapters/key-view.js';
import { balanceText, creditRuleText } from './credit-lines.js';
import { planText, printTable, refused } from './key-lines.js';
import { idOnly, type KeyVerb } from './key-verb.js';

export const showVerb: KeyVerb<{ readonly kind: 'show'; readonly id: string }> = {
  name: 'show',
  synopsis: 'show ID',
  flags: [],
  parse: idOnly('show'),
  async run({ id }, { operations, output, now, ban }) {
    const standing = await operations.show(id);
    if (!standing.ok) return refused(id, standing.error, output);
    const { key, rules, bannedUntil, strikes } = standingView(standing.value, now);
    output.out(`id:      ${key.id}`);
    output.out(`label:   ${key.label === '' ? '-' : key.label}`);
    output.out(`plan:    ${planText(key)}, ${key.role}`);
    output.out(`state:   ${key.state}`);
    output.out(`created: ${key.createdAt}`);
    output.out(`updated: ${key.updatedAt ?? '-'}`);
    output.out(`expires: ${key.expiresAt ?? 'never'}`);
    output.out(`revoked: ${key.revokedAt ?? '-'}`);
    output.out(`rolled:  ${key.rolledAt === null ? '-' : `${key.rolledAt}${key.previousKeyUntil === null ? '' : `, the previous key works until ${key.previousKeyUntil}`}`}`);
    output.out(`banned:  ${bannedUntil === null ? 'no' : `yes, every request refused until ${bannedUntil}`}`);
    output.out(`strikes: ${strikes ?? '-'} of ${ban.strikes} within ${ban.strikeWindowMs / 1_000} s`);
    // Only a plan with credits has a balance, so only then is the ledger asked.
    if (standing.value.key.plan.credits !== undefined) {
      const credits = await operations.credits.read(id);
      if (credits.ok) output.out(`credits: ${creditRuleText(credits.value.rule)}; balance ${balanceText(credits.value.rule, credits.value.standing)}`);
    }
    printTable(
      [
        ['RULE', 'LIMIT', 'USED', 'REMAINING', 'RESET'],
        ...rules.map(({ name, limit, used, remaining, resetAt }) => [name, String(limit), String(used ?? '-'), String(remaining), resetAt ?? '-']),
      ],
      output,
    );
    return 0;
  },
};
