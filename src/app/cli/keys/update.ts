import { WITHIN_CHANGES_REACH_INSTANCES } from '../../../adapters/change-propagation.js';
import { keyView } from '../../../adapters/key-view.js';
import { readKeyChanges, type KeyOptions } from '../../../domain/keys/key-fields.js';
import { ok } from '../../../domain/result.js';
import { grantLines, refused } from './key-lines.js';
import { fieldsOfFlags, flagName, idOperand, KEY_FLAGS, type KeyVerb } from './key-verb.js';

export const updateVerb: KeyVerb<{ readonly kind: 'update'; readonly id: string; readonly changes: KeyOptions }> = {
  name: 'update',
  synopsis: `update ID [--plan PLAN [--per-minute N --per-day N]] [--role customer|staff]
                            [--expires-in DURATION] [--label TEXT]`,
  notes: `update changes only what it is given; every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}.`,
  flags: KEY_FLAGS,
  parse(operands, flags, plans) {
    const id = idOperand('update', operands);
    if (!id.ok) return id;
    const changes = readKeyChanges(fieldsOfFlags(flags), flagName, plans);
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
