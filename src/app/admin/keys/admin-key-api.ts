import { createAdminKeyHandler, type AdminKeyApi } from '../../../adapters/http/admin-key-handler.js';
import type { KeyAdministration } from '../../../adapters/http/admin/key-administration.js';
import { planNamesOf, type PlanCatalog } from '../../../domain/quota/plan-parser.js';
import { PLAN_NAMES } from '../../../domain/quota/plan.js';
import { MAX_PAGE_LIMIT, parsePageLimit } from '../../../domain/paging/page-limits.js';
import { KEY_STATES } from '../../../ports/api-key-registry.js';
import { err, ok } from '../../../domain/result.js';
import type { Clock } from '../../../ports/clock.js';
import { MIN_ADMIN_TOKEN_LENGTH } from '../../config/config.js';
import { parseGrace, readKeyChanges, readNewKey, type FieldNames } from '../../../domain/keys/key-fields.js';
import { overrideProblemText, readOverridesJson, type OverrideSyntax } from '../../../domain/keys/key-overrides.js';
import type { OverrideEdits } from '../../../domain/quota/override-edits.js';
import type { Result } from '../../../domain/result.js';
import { isKeyId, usedToday, type KeyOperations, type OverridesRefused } from '../../keys/key-operations.js';
import { readCreditChange, readUsageFormat, readUsageRange, type CreditFieldNames } from '../../keys/credit-fields.js';
import { usageCsv, usageJson } from '../../keys/usage-export.js';

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

/** The credit fields as the JSON and the query name them. */
const creditName: CreditFieldNames = (field) => field;

/** A key's overrides as the JSON writes them: what a refusal tells the caller to send. */
const JSON_SYNTAX: OverrideSyntax = { limit: (rule) => `overrides.${rule}.limit`, unset: (rule) => `"overrides": {"${rule}": null}` };

/** The body's `overrides`, read (`unsets`: null may remove one); undefined when absent. */
const editsOf = (overrides: unknown, unsets: boolean): Result<OverrideEdits | undefined, string> =>
  overrides === undefined ? ok(undefined) : readOverridesJson(overrides, unsets);

const overridesInvalid = ({ overrides }: OverridesRefused) => invalid(overrideProblemText(overrides, JSON_SYNTAX));

/** The key verbs as the admin API calls them: its JSON fields read by the readers of `petstore keys` flags. */
const administrationOf = (keys: KeyOperations, plans: PlanCatalog): KeyAdministration => ({
  isKeyId,
  async create(fields, overrides) {
    const edits = editsOf(overrides, false);
    if (!edits.ok) return invalid(edits.error);
    const request = readNewKey(fields, jsonName, plans, edits.value);
    if (!request.ok) return invalid(request.error);
    const created = await keys.create(request.value);
    return created.ok ? created : overridesInvalid(created.error);
  },
  async list({ limit: limitText, cursor, plan, status }) {
    const limit = limitText === undefined ? ok(MAX_PAGE_LIMIT) : parsePageLimit(limitText);
    if (!limit.ok) return invalid(`${limit.error.message}.`);
    if (status !== undefined && !(KEY_STATES as readonly string[]).includes(status)) return invalid(`status must be one of ${KEY_STATES.join(', ')}.`);
    const known = plan === undefined || (PLAN_NAMES as readonly string[]).includes(plan) || plans.has(plan);
    if (!known) return invalid(`plan must be one of ${planNamesOf(plans)}.`);
    const after = cursor === undefined ? undefined : Buffer.from(cursor, 'base64url').toString();
    if (after !== undefined && !isKeyId(after)) return invalid('cursor is not one this API gave: start again without it.');
    const state = KEY_STATES.find((known) => known === status);
    const page = await keys.listPage({
      limit: limit.value,
      ...(after === undefined ? {} : { after }),
      ...(plan === undefined ? {} : { plan }),
      ...(state === undefined ? {} : { state }),
    });
    if (!page.ok) return invalid('cursor names no key: start again without it.');
    const { standings, more } = page.value;
    const last = standings.at(-1)?.key.id;
    const filters = new URLSearchParams({ limit: String(limit.value), ...(plan === undefined ? {} : { plan }), ...(status === undefined ? {} : { status }) });
    return ok({
      keys: standings.map((standing) => ({ key: standing.key, usedToday: usedToday(standing) })),
      ...(more && last !== undefined ? { next: `${filters.toString()}&cursor=${Buffer.from(last).toString('base64url')}` } : {}),
    });
  },
  show: (id) => keys.show(id),
  async update(id, fields, overrides) {
    const edits = editsOf(overrides, true);
    if (!edits.ok) return invalid(edits.error);
    const changes = readKeyChanges(fields, jsonName, plans, edits.value);
    if (!changes.ok) return invalid(changes.error);
    const updated = await keys.update(id, changes.value);
    if (updated.ok) return updated;
    const { error } = updated;
    return typeof error === 'string' ? err(error) : overridesInvalid(error);
  },
  unban: (id) => keys.unban(id),
  reset: (id) => keys.reset(id),
  async roll(id, grace) {
    const graceMs = parseGrace(grace, jsonName);
    return graceMs.ok ? keys.roll(id, graceMs.value) : invalid(graceMs.error);
  },
  revoke: (id) => keys.revoke(id),
  credits: (id) => keys.credits.read(id),
  async changeCredits(id, fields) {
    const change = readCreditChange(fields['set'], fields['add'], creditName);
    return change.ok ? keys.credits.change(id, change.value) : invalid(change.error);
  },
  async usage({ key, from, to, format }) {
    const range = readUsageRange(from, to, creditName);
    if (!range.ok) return invalid(range.error);
    const chosen = readUsageFormat(format, creditName, 'json');
    if (!chosen.ok) return invalid(chosen.error);
    // An id no key can have names none: not found, without asking a store (PostgreSQL refuses a NUL in text).
    if (key !== undefined && !isKeyId(key)) return err('not_found' as const);
    const rows = await keys.credits.usage(key, range.value);
    if (!rows.ok) return rows;
    return ok({ format: chosen.value, body: chosen.value === 'csv' ? usageCsv(rows.value) : usageJson(rows.value) });
  },
});

/**
 * The admin key API (the listener's /keys routes and /openapi.json) over the app's key verbs:
 * the one call the composition makes when PETSTORE_ADMIN_TOKEN is set.
 */
export function createAdminKeyApi({ token, keys, clock, plans }: AdminKeyApiOptions): AdminKeyApi {
  return createAdminKeyHandler({ token, tokenRule: ADMIN_TOKEN_RULE, keys: administrationOf(keys, plans), clock });
}
