import { createVerb } from './create.js';
import { creditsVerb } from './credits.js';
import { listVerb } from './list.js';
import { resetVerb } from './reset.js';
import { revokeVerb } from './revoke.js';
import { rollVerb } from './roll.js';
import { showVerb } from './show.js';
import { unbanVerb } from './unban.js';
import { updateVerb } from './update.js';
import { usageVerb } from './usage.js';

/** The verbs of `petstore keys`, in the order the usages list them; each in its own module. */
export const KEY_VERBS = [createVerb, updateVerb, showVerb, unbanVerb, resetVerb, rollVerb, listVerb, revokeVerb, creditsVerb, usageVerb] as const;
