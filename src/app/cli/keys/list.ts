import { keyView } from '../../../adapters/key-view.js';
import { err, ok } from '../../../domain/result.js';
import { usedToday } from '../../keys/key-operations.js';
import { planText, printTable } from './key-lines.js';
import type { KeyVerb } from './key-verb.js';

export const listVerb: KeyVerb<{ readonly kind: 'list' }> = {
  name: 'list',
  synopsis: 'list',
  flags: [],
  parse: (operands) => (operands.length > 0 ? err(`list takes no argument: ${JSON.stringify(operands[0])}`) : ok({ kind: 'list' })),
  async run(_action, { operations, output, now, redisPrefix }) {
    const standings = await operations.list();
    if (standings.length === 0) {
      output.out(`No keys created with petstore keys create under the prefix ${JSON.stringify(redisPrefix)}.`);
      return 0;
    }
    const rows = standings.map((standing) => {
      const key = keyView(standing.key, now);
      return [key.id, key.state, planText(key), key.role, String(usedToday(standing) ?? '-'), key.createdAt, key.expiresAt ?? 'never', key.revokedAt ?? '-', key.label];
    });
    printTable([['ID', 'STATE', 'PLAN', 'ROLE', 'USED TODAY', 'CREATED', 'EXPIRES', 'REVOKED', 'LABEL'], ...rows], output);
    return 0;
  },
};
