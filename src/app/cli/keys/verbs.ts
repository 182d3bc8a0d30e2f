import { createVerb } from './create.js';
import { listVerb } from './list.js';
import { revokeVerb } from './revoke.js';
import { rollVerb } from './roll.js';
import { showVerb } from './show.js';
import { unbanVerb } from './unban.js';
import { updateVerb } from './update.js';

/** The verbs of `petstore keys`, in the order the usages list them; each in its own module. */
export const KEY_VERBS = [createVerb, updateVerb, showVerb, unbanVerb, rollVerb, listVerb, revokeVerb] as const;
