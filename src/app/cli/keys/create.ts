import { keyView } from '../../../adapters/key-view.js';
import { readNewKey, type NewKeyRequest } from '../../../domain/keys/key-fields.js';
import { err, ok } from '../../../domain/result.js';
import { grantLines, SHOWN_ONCE } from './key-lines.js';
import { fieldsOfFlags, flagName, KEY_FLAGS, type KeyVerb } from './key-verb.js';

export const createVerb: KeyVerb<{ readonly kind: 'create'; readonly key: NewKeyRequest }> = {
  name: 'create',
  synopsis: `create --plan free|pro|business|PLAN [--role customer|staff]
                            [--expires-in DURATION] [--label TEXT]
       petstore keys create --plan enterprise --per-minute N --per-day N [...]`,
  notes: 'The key is printed once, by create: the store keeps only its SHA-256 digest.',
  flags: KEY_FLAGS,
  parse(operands, flags, plans) {
    if (operands.length > 0) return err(`create takes no argument: ${JSON.stringify(operands[0])}`);
    const key = readNewKey(fieldsOfFlags(flags), flagName, plans);
    return key.ok ? ok({ kind: 'create', key: key.value }) : key;
  },
  async run({ key }, { operations, output, now }) {
    const issued = await operations.create(key);
    const view = keyView(issued.key, now);
    output.out(`id:      ${view.id}`);
    output.out(`key:     ${issued.secret}`);
    for (const line of grantLines(view)) output.out(line);
    output.out(SHOWN_ONCE);
    return 0;
  },
};
