import { keyView } from '../../../adapters/key-view.js';
import { readNewKey, type NewKeyRequest } from '../../../domain/keys/key-fields.js';
import { err, ok } from '../../../domain/result.js';
import { grantLines, refusedOverrides, SHOWN_ONCE } from './key-lines.js';
import { FLAG_OF, fieldsOfFlags, flagName, KEY_FLAGS, overridesOfFlags, type KeyVerb } from './key-verb.js';

export const createVerb: KeyVerb<{ readonly kind: 'create'; readonly key: NewKeyRequest }> = {
  name: 'create',
  synopsis: `create --plan free|pro|business|PLAN [--role customer|staff]
                            [--expires-in DURATION] [--label TEXT] [--limit RULE=N[:MODE]]...
       petstore keys create --plan enterprise --per-minute N --per-day N [...]`,
  notes: 'The key is printed once, by create: the store keeps only its SHA-256 digest.',
  flags: [...KEY_FLAGS, FLAG_OF.overrides],
  parse(operands, flags, plans) {
    if (operands.length > 0) return err(`create takes no argument: ${JSON.stringify(operands[0])}`);
    const overrides = overridesOfFlags(flags);
    if (!overrides.ok) return overrides;
    const key = readNewKey(fieldsOfFlags(flags), flagName, plans, overrides.value);
    return key.ok ? ok({ kind: 'create', key: key.value }) : key;
  },
  async run({ key }, { operations, output, now }) {
    const created = await operations.create(key);
    if (!created.ok) return refusedOverrides(created.error, output);
    const issued = created.value;
    const view = keyView(issued.key, now);
    output.out(`id:      ${view.id}`);
    output.out(`key:     ${issued.secret}`);
    for (const line of grantLines(view)) output.out(line);
    output.out(SHOWN_ONCE);
    return 0;
  },
};
