import { WITHIN_CHANGES_REACH_INSTANCES } from '../../../adapters/change-propagation.js';
import { keyView } from '../../../adapters/key-view.js';
import { readKeyChanges, type KeyOptions } from '../../../domain/keys/key-fields.js';
import { ok } from '../../../domain/result.js';
import { grantLines, refused } from './key-lines.js';
import { FLAG_OF, fieldsOfFlags, flagName, idOperand, KEY_FLAGS, overridesOfFlags, UNSET_LIMIT_FLAG, type KeyVerb } from './key-verb.js';

export const updateVerb: KeyVerb<{ readonly kind: 'update'; readonly id: string; readonly changes: KeyOptions }> = {
  name: 'update',
  synopsis: `update ID [--plan PLAN [--per-minute N --per-day N]] [--role customer|staff]
                            [--expires-in DURATION] [--label TEXT]
                            [--limit RULE=N[:MODE]]... [--unset-limit RULE]...`,
  notes: `update changes only what it is given; every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}.
--limit RULE=N gives the key a limit of its own for its plan's rule RULE (the window stays
the plan's), RULE=N:shadow or RULE=N:enforce a mode too; --unset-limit RULE gives the rule
back the plan's terms. Overrides that do not fit the key's plan are refused, exit 1.`,
  flags: [...KEY_FLAGS, FLAG_OF.overrides, UNSET_LIMIT_FLAG],
  parse(operands, flags, plans) {
    const id = idOperand('update', operands);
    if (!id.ok) return id;
    const overrides = overridesOfFlags(flags);
    if (!overrides.ok) return overrides;
    const changes = readKeyChanges(fieldsOfFlags(flags), flagName, plans, overrides.value);
    return changes.ok ? ok({ kind: 'update', id: id.value, changes: changes.value }) : changes;
  },
  async run({ id, changes }, { operations, output, now }) {
    const updated = await operations.update(id, changes);
    if (!updated.ok) return refused(id, updated.error, output);
    output.out(`Updated ${id}: every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}.`);
    for (const line of grantLines(keyView(updated.value, now))) output.out(line);
    return 0;
  },
};
