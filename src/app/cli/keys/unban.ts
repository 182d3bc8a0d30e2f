import { WITHIN_CHANGES_REACH_INSTANCES } from '../../../adapters/change-propagation.js';
import { refused } from './key-lines.js';
import { idOnly, type KeyVerb } from './key-verb.js';

export const unbanVerb: KeyVerb<{ readonly kind: 'unban'; readonly id: string }> = {
  name: 'unban',
  synopsis: 'unban ID',
  notes: `unban starts the key's quota over (counts, strikes and any ban); every instance admits it ${WITHIN_CHANGES_REACH_INSTANCES}.`,
  flags: [],
  parse: idOnly('unban'),
  async run({ id }, { operations, output }) {
    const unbanned = await operations.unban(id);
    if (!unbanned.ok) return refused(id, unbanned.error, output);
    output.out(`Unbanned ${id}: its quota starts over (counts, strikes and any ban); every instance admits it ${WITHIN_CHANGES_REACH_INSTANCES}.`);
    return 0;
  },
};
