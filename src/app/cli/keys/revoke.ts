import { WITHIN_CHANGES_REACH_INSTANCES } from '../../../adapters/change-propagation.js';
import { refused } from './key-lines.js';
import { idOnly, type KeyVerb } from './key-verb.js';

export const revokeVerb: KeyVerb<{ readonly kind: 'revoke'; readonly id: string }> = {
  name: 'revoke',
  synopsis: 'revoke ID',
  flags: [],
  parse: idOnly('revoke'),
  async run({ id }, { operations, output }) {
    const revoked = await operations.revoke(id);
    if (!revoked.ok) return refused(id, revoked.error, output);
    output.out(revoked.value.alreadyRevoked ? `${id} was revoked already.` : `Revoked ${id}: every instance refuses it ${WITHIN_CHANGES_REACH_INSTANCES}.`);
    return 0;
  },
};
