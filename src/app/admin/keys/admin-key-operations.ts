import type { TSchema } from 'typebox';
import type { ErrorResponse } from '../../../adapters/http/contract/operation-declaration.js';
import type { HttpErrorCode } from '../../../adapters/http/wire/http-errors.js';
import { DAY_MS, MINUTE_MS } from '../../../domain/quota/plan.js';
import { err, ok, type Result } from '../../../domain/result.js';
import type { ManagedApiKey } from '../../../ports/api-key-registry.js';
import { WITHIN_CHANGES_REACH_INSTANCES } from '../../keys/change-propagation.js';
import { DEFAULT_ROLL_GRACE, parseGrace, readKeyChanges, readNewKey, type FieldNames, type KeyField, type KeyFieldValues } from '../../keys/key-fields.js';
import { stateOf, usedToday, type KeyOperations, type KeyRefusal, type KeyStanding } from '../../keys/key-operations.js';
import { IssuedKeySchema, KeyAnswerSchema, KeyChangesSchema, KeyListSchema, KeyStandingSchema, NewKeySchema, RollSchema } from './admin-key-schemas.js';

export interface AdminSuccess {
  readonly description: string;
  readonly body: TSchema;
}

/** What a verb answers: a status and its JSON, or an error of the shared Error format. */
export type AdminAnswer = { readonly status: number; readonly body: unknown } | { readonly error: HttpErrorCode; readonly message: string };

export interface AdminRequest {
  /** The `{id}` of the path; '' where the path has none. */
  readonly id: string;
  /** The JSON body of an operation that declares one. */
  readonly body: unknown;
  readonly now: number;
}

/**
 * One route of the admin API: its contract (the router, the 405 Allow lists and the admin
 * OpenAPI document derive from it) and the key verb it calls.
 */
export interface AdminOperation {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PATCH';
  /** OpenAPI template: `/keys/{id}`. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  /** `optional`: a request without a body stands for `{}`. */
  readonly body?: { readonly description: string; readonly schema: TSchema; readonly optional?: true };
  readonly responses: Readonly<Record<number, AdminSuccess | ErrorResponse>>;
  answer(request: AdminRequest, keys: KeyOperations): Promise<AdminAnswer>;
}

/** Fields as the JSON names them: the body's own property names. */
const jsonName: FieldNames = (field) => field;

const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const isoOrNull = (ms: number | undefined): string | null => (ms === undefined ? null : isoSeconds(ms));
/** Rounded up, as X-RateLimit-Reset is: the second by which the rule's remaining has risen. */
const isoUpOrNull = (ms: number | undefined): string | null => (ms === undefined ? null : isoSeconds(Math.ceil(ms / 1_000) * 1_000));

const limitOf = (key: ManagedApiKey, windowMs: number): number | undefined => key.plan.rules.find((rule) => rule.windowMs === windowMs)?.limit;

const keyJson = (key: ManagedApiKey, now: number) => ({
  id: key.id,
  label: key.label,
  plan: key.plan.name,
  perMinute: limitOf(key, MINUTE_MS),
  perDay: limitOf(key, DAY_MS),
  role: key.role,
  state: stateOf(key, now),
  createdAt: isoSeconds(key.createdAt),
  updatedAt: isoOrNull(key.updatedAt),
  expiresAt: isoOrNull(key.expiresAt),
  revokedAt: isoOrNull(key.revokedAt),
  rolledAt: isoOrNull(key.rolledAt),
  previousKeyUntil: isoOrNull(key.previousSecretUntil),
});

const standingJson = ({ key, rules, bannedUntil, strikes }: KeyStanding, now: number) => ({
  key: keyJson(key, now),
  rules: rules.map(({ name, limit, used, remaining, resetAt }) => ({ name, limit, used: used ?? null, remaining, resetAt: isoUpOrNull(resetAt) })),
  bannedUntil: isoUpOrNull(bannedUntil),
  strikes: strikes ?? null,
});

const REFUSALS: Record<KeyRefusal, ErrorResponse & { readonly errors: readonly [HttpErrorCode] }> = {
  not_found: { description: 'No key has this id.', errors: ['not_found'] },
  revoked: { description: 'The key is revoked, and a revoked key stays so: nothing changed.', errors: ['key_revoked'] },
};

const refusal = (id: string, reason: KeyRefusal): AdminAnswer =>
  reason === 'not_found'
    ? { error: 'not_found', message: `No key has the id ${JSON.stringify(id)} (GET /keys lists them).` }
    : { error: 'key_revoked', message: `${id} is revoked, and a revoked key stays so: nothing changed (POST /keys makes a new one).` };

const invalid = (message: string): AdminAnswer => ({ error: 'invalid_request', message });

const LIMIT_FIELDS: ReadonlySet<string> = new Set<KeyField>(['perMinute', 'perDay']);

/**
 * A JSON body as the fields the key verbs read: an object of the named properties only, limits
 * as whole numbers and the rest as strings, so the checks are the command line's own.
 */
function fieldsOf(body: unknown, allowed: readonly string[]): Result<KeyFieldValues, string> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return err('The body must be a JSON object.');
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (!allowed.includes(name)) return err(`Unknown field ${JSON.stringify(name)}: expected ${allowed.join(', ')}.`);
    if (LIMIT_FIELDS.has(name)) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return err(`${name} must be a whole number.`);
      values[name] = String(value);
    } else {
      if (typeof value !== 'string') return err(`${name} must be a string.`);
      values[name] = value;
    }
  }
  return ok(values);
}

const propertiesOf = (schema: TSchema): string[] => Object.keys((schema as { properties?: object }).properties ?? {});

const KEY_PATH = '/keys/{id}';

export const ADMIN_KEY_OPERATIONS: readonly AdminOperation[] = [
  {
    operationId: 'createKey',
    method: 'POST',
    path: '/keys',
    summary: 'Create a key',
    description: 'A new random key for a plan and a role. The answer holds the key itself, shown this once: the store keeps only its digest.',
    body: { description: 'The plan, and optionally role, label and expiry.', schema: NewKeySchema },
    responses: { 201: { description: 'The key and its secret.', body: IssuedKeySchema } },
    async answer({ body, now }, keys) {
      const fields = fieldsOf(body, propertiesOf(NewKeySchema));
      const request = fields.ok ? readNewKey(fields.value, jsonName) : fields;
      if (!request.ok) return invalid(request.error);
      const { key, secret } = await keys.create(request.value);
      return { status: 201, body: { key: keyJson(key, now), secret } };
    },
  },
  {
    operationId: 'listKeys',
    method: 'GET',
    path: '/keys',
    summary: 'List keys',
    description: 'Every managed key, with the requests counted in its rolling day. Keys of PETSTORE_API_KEYS are configuration, not listed.',
    responses: { 200: { description: 'The keys, oldest first.', body: KeyListSchema } },
    async answer({ now }, keys) {
      const standings = await keys.list();
      return { status: 200, body: { keys: standings.map((standing) => ({ key: keyJson(standing.key, now), usedToday: usedToday(standing) ?? null })) } };
    },
  },
  {
    operationId: 'showKey',
    method: 'GET',
    path: KEY_PATH,
    summary: "Show a key and its quota",
    description: "Each rule's limit, used, remaining and reset, and any ban's end, read without counting.",
    responses: { 200: { description: 'The key as it stands.', body: KeyStandingSchema }, 404: REFUSALS.not_found },
    async answer({ id, now }, keys) {
      const standing = await keys.show(id);
      return standing.ok ? { status: 200, body: standingJson(standing.value, now) } : refusal(id, standing.error);
    },
  },
  {
    operationId: 'updateKey',
    method: 'PATCH',
    path: KEY_PATH,
    summary: 'Change a key',
    description: `Plan, limits, role, label or expiry; what is not given stays. Every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}; what was counted stays counted.`,
    body: { description: 'What changes.', schema: KeyChangesSchema },
    responses: { 200: { description: 'The key as changed.', body: KeyAnswerSchema }, 404: REFUSALS.not_found, 409: REFUSALS.revoked },
    async answer({ id, body, now }, keys) {
      const fields = fieldsOf(body, propertiesOf(KeyChangesSchema));
      const changes = fields.ok ? readKeyChanges(fields.value, jsonName) : fields;
      if (!changes.ok) return invalid(changes.error);
      const updated = await keys.update(id, changes.value);
      return updated.ok ? { status: 200, body: { key: keyJson(updated.value, now) } } : refusal(id, updated.error);
    },
  },
  {
    operationId: 'unbanKey',
    method: 'POST',
    path: `${KEY_PATH}/unban`,
    summary: "Lift a key's ban",
    description: `Starts the key's quota over: counts, strikes and any ban. Every instance admits it ${WITHIN_CHANGES_REACH_INSTANCES}.`,
    responses: { 200: { description: 'The key.', body: KeyAnswerSchema }, 404: REFUSALS.not_found },
    async answer({ id, now }, keys) {
      const unbanned = await keys.unban(id);
      return unbanned.ok ? { status: 200, body: { key: keyJson(unbanned.value, now) } } : refusal(id, unbanned.error);
    },
  },
  {
    operationId: 'rollKey',
    method: 'POST',
    path: `${KEY_PATH}/roll`,
    summary: 'Roll a key',
    description:
      'A new secret for the same id, plan, usage and label. The previous secret keeps working until the grace ends; both count against one quota. A second roll ends the grace of the secret before.',
    body: { description: `The grace; none (no body, or \`{}\`): ${DEFAULT_ROLL_GRACE}.`, schema: RollSchema, optional: true },
    responses: { 200: { description: 'The key and its new secret.', body: IssuedKeySchema }, 404: REFUSALS.not_found, 409: REFUSALS.revoked },
    async answer({ id, body, now }, keys) {
      const fields = fieldsOf(body, propertiesOf(RollSchema));
      const grace = fields.ok ? parseGrace(fields.value.grace, jsonName) : fields;
      if (!grace.ok) return invalid(grace.error);
      const rolled = await keys.roll(id, grace.value);
      return rolled.ok ? { status: 200, body: { key: keyJson(rolled.value.key, now), secret: rolled.value.secret } } : refusal(id, rolled.error);
    },
  },
  {
    operationId: 'revokeKey',
    method: 'POST',
    path: `${KEY_PATH}/revoke`,
    summary: 'Revoke a key',
    description: `Every instance refuses it ${WITHIN_CHANGES_REACH_INSTANCES}. Revoking a revoked key changes nothing and answers the same.`,
    responses: { 200: { description: 'The key as revoked.', body: KeyAnswerSchema }, 404: REFUSALS.not_found },
    async answer({ id, now }, keys) {
      const revoked = await keys.revoke(id);
      return revoked.ok ? { status: 200, body: { key: keyJson(revoked.value.key, now) } } : refusal(id, revoked.error);
    },
  },
];
