import { WITHIN_CHANGES_REACH_INSTANCES } from '../../../adapters/change-propagation.js';
import { keyView } from '../../../adapters/key-view.js';
import { DEFAULT_ROLL_GRACE, parseGrace } from '../../../domain/keys/key-fields.js';
import { ok } from '../../../domain/result.js';
import { refused, SHOWN_ONCE } from './key-lines.js';
import { FLAG_OF, flagName, idOperand, single, type KeyVerb } from './key-verb.js';

export const rollVerb: KeyVerb<{ readonly kind: 'roll'; readonly id: string; readonly graceMs: number }> = {
  name: 'roll',
  synopsis: 'roll ID [--grace DURATION|0]',
  notes: `roll prints a new key for the same id, plan, usage and label; the previous one keeps working
for the grace (default ${DEFAULT_ROLL_GRACE}; 0: stops ${WITHIN_CHANGES_REACH_INSTANCES}), and both count against one quota.`,
  flags: [FLAG_OF.grace],
  parse(operands, flags) {
    const id = idOperand('roll', operands);
    if (!id.ok) return id;
    const grace = parseGrace(single(flags[FLAG_OF.grace]), flagName);
    return grace.ok ? ok({ kind: 'roll', id: id.value, graceMs: grace.value }) : grace;
  },
  async run({ id, graceMs }, { operations, output, now }) {
    const rolled = await operations.roll(id, graceMs);
    if (!rolled.ok) return refused(id, rolled.error, output);
    const key = keyView(rolled.value.key, now);
    output.out(`id:      ${key.id}`);
    output.out(`key:     ${rolled.value.secret}`);
    output.out(
      `before:  ${key.previousKeyUntil === null ? `the previous key stops working ${WITHIN_CHANGES_REACH_INSTANCES}` : `the previous key works until ${key.previousKeyUntil}`}`,
    );
    output.out(SHOWN_ONCE);
    return 0;
  },
};
