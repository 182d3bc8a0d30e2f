import { WITHIN_CHANGES_REACH_INSTANCES } from '../../../adapters/change-propagation.js';
import { refused } from './key-lines.js';
import { idOnly, type KeyVerb } from './key-verb.js';

export const unbanVerb: KeyVerb<{ readonly kind: 'unban'; readonly id: string }> = {
  name: 'unban',
  synopsis: 'unban ID',
  notes: `unban lifts the key's ban, with its counts and strikes (kept together); every instance admits it ${WITHIN_CHANGES_REACH_INSTANCES}. A key not banned is left as it is.`,
  flags: [],
  parse: idOnly('unban'),
  async run({ id }, { operations, output }) {
    const unbanned = await operations.unban(id);
    if (!unbanned.ok) {
      if (unbanned.error !== 'not_banned') return refused(id, unbanned.error, output);
      output.err(`petstore keys: ${id} is not banned: nothing changed (petstore keys reset ${id} forgets its counters)`);
      return 1;
    }
    output.out(`Unbanned ${id}: its quota starts over (counts, strikes and the ban); every instance admits it ${WITHIN_CHANGES_REACH_INSTANCES}.`);
    return 0;
  },
};
