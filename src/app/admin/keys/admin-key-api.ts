import { createAdminKeyHandler, type AdminKeyApi } from '../../../adapters/http/admin-key-handler.js';
import type { KeyAdministration } from '../../../adapters/http/admin/key-administration.js';
import type { PlanCatalog } from '../../../domain/quota/plan-parser.js';
import { err, ok } from '../../../domain/result.js';
import type { Clock } from '../../../ports/clock.js';
import { MIN_ADMIN_TOKEN_LENGTH } from '../../config/config.js';
import { parseGrace, readKeyChanges, readNewKey, type FieldNames } from '../../../domain/keys/key-fields.js';
import { isKeyId, usedToday, type KeyOperations } from '../../keys/key-operations.js';

export interface AdminKeyApiOptions {
  /** PETSTORE_ADMIN_TOKEN. */
  readonly token: string;
  readonly keys: KeyOperations;
  readonly clock: Clock;
  /** PETSTORE_PLANS: a key's `plan` may name one of them too. */
  readonly plans: PlanCatalog;
}

/** What PETSTORE_ADMIN_TOKEN must be, as the admin document states it. */
export const ADMIN_TOKEN_RULE = `PETSTORE_ADMIN_TOKEN (${MIN_ADMIN_TOKEN_LENGTH} to 256 visible ASCII characters)`;

/** Fields as the JSON names them: the body's own property names. */
const jsonName: FieldNames = (field) => field;

const invalid = (message: string) => err({ invalid: message });

/** The key verbs as the admin API calls them: its JSON fields read by the readers of `petstore keys` flags. */
const administrationOf = (keys: KeyOperations, plans: PlanCatalog): KeyAdministration => ({
  isKeyId,
  async create(fields) {
    const request = readNewKey(fields, jsonName, plans);
    return request.ok ? ok(await keys.create(request.value)) : invalid(request.error);
  },
  list: async () => (await keys.list()).map((standing) => ({ key: standing.key, usedToday: usedToday(standing) })),
  show: (id) => keys.show(id),
  async update(id, fields) {
    const changes = readKeyChanges(fields, jsonName, plans);
    return changes.ok ? keys.update(id, changes.value) : invalid(changes.error);
  },
  unban: (id) => keys.unban(id),
  async roll(id, grace) {
    const graceMs = parseGrace(grace, jsonName);
    return graceMs.ok ? keys.roll(id, graceMs.value) : invalid(graceMs.error);
  },
  revoke: (id) => keys.revoke(id),
});

/**
 * The admin key API (the listener's /keys routes and /openapi.json) over the app's key verbs:
 * the one call the composition makes when PETSTORE_ADMIN_TOKEN is set.
 */
export function createAdminKeyApi({ token, keys, clock, plans }: AdminKeyApiOptions): AdminKeyApi {
  return createAdminKeyHandler({ token, tokenRule: ADMIN_TOKEN_RULE, keys: administrationOf(keys, plans), clock });
}
