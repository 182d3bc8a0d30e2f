import { WITHIN_CHANGES_REACH_INSTANCES } from '../../../adapters/change-propagation.js';
import { refused } from './key-lines.js';
import { idOnly, type KeyVerb } from './key-verb.js';

export const resetVerb: KeyVerb<{ readonly kind: 'reset'; readonly id: string }> = {
  name: 'reset',
  synopsis: 'reset ID',
  notes: `reset starts the key's quota over, banned or not: counts, strikes and any ban; every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}.`,
  flags: [],
  parse: idOnly('reset'),
  async run({ id }, { operations, output }) {
    const reset = await operations.reset(id);
    if (!reset.ok) return refused(id, reset.error, output);
    output.out(`Reset ${id}: its quota starts over (counts, strikes and any ban); every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}.`);
    return 0;
  },
};
