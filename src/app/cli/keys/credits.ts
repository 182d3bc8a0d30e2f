import type { CreditChange } from '../../../domain/credits/credit-balance.js';
import { ok } from '../../../domain/result.js';
import { givesChange, readCreditChange } from '../../keys/credit-fields.js';
import { printCredits, refusedCredits } from './credit-lines.js';
import { idOperand, single, type KeyVerb } from './key-verb.js';

const SET = 'set';
const ADD = 'add';

export const creditsVerb: KeyVerb<{ readonly kind: 'credits'; readonly id: string; readonly change?: CreditChange }> = {
  name: 'credits',
  synopsis: 'credits ID [--set N | --add N]',
  notes: `credits prints the key's credit rule (its plan's), balance, period and next refill; --set N sets the
balance to N, --add N adds N units (--add=-N takes N away, never below 0). Each change is logged.`,
  flags: [SET, ADD],
  parse(operands, flags) {
    const id = idOperand('credits', operands);
    if (!id.ok) return id;
    const [set, add] = [single(flags[SET]), single(flags[ADD])];
    if (!givesChange(set, add)) return ok({ kind: 'credits', id: id.value });
    const change = readCreditChange(set, add, (field) => `--${field}`);
    return change.ok ? ok({ kind: 'credits', id: id.value, change: change.value }) : change;
  },
  async run({ id, change }, { operations, output }) {
    if (change === undefined) {
      const read = await operations.credits.read(id);
      if (!read.ok) return refusedCredits(id, read.error, output);
      printCredits(read.value, output);
      return 0;
    }
    const changed = await operations.credits.change(id, change);
    if (!changed.ok) return refusedCredits(id, changed.error, output);
    output.out(`Changed the credits of ${id}: ${changed.value.before} before, ${changed.value.standing.balance} now.`);
    printCredits(changed.value, output);
    return 0;
  },
};
