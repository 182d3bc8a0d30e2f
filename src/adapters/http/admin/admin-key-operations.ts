import Type, { type TSchema } from 'typebox';
import type { HandledOperation, OperationDeclaration } from '../contract/operation.js';
import type { HttpErrorCode } from '../wire/http-errors.js';
import { readJsonRequest } from '../wire/json-request.js';
import { hasBody, pathParameter, sendError, sendJson, type RequestContext } from '../wire/request-context.js';
import { StoreUnavailableError } from '../../../domain/errors.js';
import { err, ok, type Result } from '../../../domain/result.js';
import type { Clock } from '../../../ports/clock.js';
import { IssuedKeySchema, KeyAnswerSchema, KeyChangesSchema, KeyListSchema, KeyStandingSchema, NewKeySchema, OVERRIDES_FIELD, RollSchema } from './admin-key-schemas.js';
import type { KeyAdministration, KeyFieldText, KeyRefusal } from './key-administration.js';
import { keyView, standingView } from '../../key-view.js';
import { WITHIN_CHANGES_REACH_INSTANCES } from '../../change-propagation.js';
import { DEFAULT_ROLL_GRACE } from '../../../domain/keys/key-fields.js';

/** The groups of the admin document. */
export const ADMIN_TAGS = { Keys: 'Create, change, read, unban, roll and revoke API keys.' } as const;
export type AdminTagName = keyof typeof ADMIN_TAGS;

/** What the admin operations run on. */
export interface AdminServices {
  readonly keys: KeyAdministration;
  readonly clock: Clock;
  /** The served admin OpenAPI document, serialised once. */
  readonly openApiJson: string;
}

export type AdminOperation = HandledOperation<AdminServices, AdminTagName>;

/** What a verb answers: a status and its JSON, or a refusal. */
type VerbAnswer = { readonly status: number; readonly body: unknown } | { readonly refused: KeyRefusal };

interface VerbRequest {
  /** The `{id}` of the path; '' where the path has none. */
  readonly id: string;
  /** The JSON body of an operation that declares one; `{}` for an optional one left out. */
  readonly body: unknown;
  readonly now: number;
}

/** A key verb's declaration, and its answer to a request whose body (if declared) was read. */
interface KeyVerb extends OperationDeclaration<AdminTagName> {
  answer(request: VerbRequest, keys: KeyAdministration): Promise<VerbAnswer>;
}

const refusalOf = (id: string, refused: KeyRefusal): { code: HttpErrorCode; message: string } =>
  refused === 'not_found'
    ? { code: 'not_found', message: `No key has the id ${JSON.stringify(id)} (GET /keys lists them).` }
    : refused === 'revoked'
      ? { code: 'key_revoked', message: `${id} is revoked, and a revoked key stays so: nothing changed (POST /keys makes a new one).` }
      : { code: 'invalid_request', message: refused.invalid };

const answerOf = <Value>(outcome: Result<Value, KeyRefusal>, status: number, body: (value: Value) => unknown): VerbAnswer =>
  outcome.ok ? { status, body: body(outcome.value) } : { refused: outcome.error };

/**
 * A JSON body as the fields the key verbs read: an object of the named properties only, limits
 * as whole numbers and the rest as strings, so the checks are the command line's own. The
 * overrides are left to overridesOf: the verbs read that JSON themselves.
 */
function fieldsOf(body: unknown, schema: TSchema): Result<KeyFieldText, KeyRefusal> {
  const properties: Readonly<Record<string, { readonly type?: unknown }>> = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const allowed = Object.keys(properties);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return err({ invalid: 'The body must be a JSON object.' });
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (!allowed.includes(name)) return err({ invalid: `Unknown field ${JSON.stringify(name)}: expected ${allowed.join(', ')}.` });
    if (name === OVERRIDES_FIELD) continue;
    if (properties[name]?.type === 'integer') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return err({ invalid: `${name} must be a whole number.` });
      values[name] = String(value);
    } else {
      if (typeof value !== 'string') return err({ invalid: `${name} must be a string.` });
      values[name] = value;
    }
  }
  return ok(values);
}

/** The body's overrides as given (undefined: absent), once fieldsOf has read the body as an object. */
const overridesOf = (body: unknown): unknown => (body as Record<string, unknown>)[OVERRIDES_FIELD];

/** The verb as an operation: the body read as declared, every answer in JSON, a store that did not answer a 503 that says so. */
function keyOperation({ answer, ...declaration }: KeyVerb): AdminOperation {
  const { body: declared } = declaration;
  return {
    ...declaration,
    handler: async (ctx: RequestContext, { keys, clock }: AdminServices) => {
      let body: unknown = {};
      if (declared !== undefined && !(declared.optional === true && !hasBody(ctx.req))) {
        const request = await readJsonRequest(ctx);
        if (request === undefined) return;
        body = request.value;
      }
      const id = pathParameter(ctx, 'id');
      let answered: VerbAnswer;
      try {
        answered = await answer({ id, body, now: clock.now() }, keys);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        return sendError(ctx, 'service_unavailable', `${error.message}: nothing was changed, or the change is not known; read the key before trying again.`);
      }
      if ('status' in answered) return sendJson(ctx, answered.status, JSON.stringify(answered.body));
      const { code, message } = refusalOf(id, answered.refused);
      sendError(ctx, code, message);
    },
  };
}

const REFUSALS = {
  not_found: { description: 'No key has this id.', errors: ['not_found'] },
  revoked: { description: 'The key is revoked, and a revoked key stays so: nothing changed.', errors: ['key_revoked'] },
} as const;

const KEY_PATH = '/keys/{id}';
const KEY_ID = { id: { description: 'The key id (`key_` and 16 hex digits).', schema: Type.String() } };
const TAGS: readonly AdminTagName[] = ['Keys'];

/** The admin API: one declaration per operation, in the order the document lists them (the document's own last, as on the public API). */
export const ADMIN_API_OPERATIONS: readonly AdminOperation[] = [
  keyOperation({
    operationId: 'createKey',
    method: 'POST',
    path: '/keys',
    auth: 'apiKey',
    tags: TAGS,
    summary: 'Create a key',
    description: 'A new random key for a plan and a role. The answer holds the key itself, shown this once: the store keeps only its digest.',
    body: { description: 'The plan, and optionally role, label, expiry and overrides of its rules.', schema: NewKeySchema },
    responses: { 201: { description: 'The key and its secret.', body: IssuedKeySchema } },
    async answer({ body, now }, keys) {
      const fields = fieldsOf(body, NewKeySchema);
      const created = fields.ok ? await keys.create(fields.value, overridesOf(body)) : fields;
      return answerOf(created, 201, ({ key, secret }) => ({ key: keyView(key, now), secret }));
    },
  }),
  keyOperation({
    operationId: 'listKeys',
    method: 'GET',
    path: '/keys',
    auth: 'apiKey',
    tags: TAGS,
    summary: 'List keys',
    description: 'Every managed key, with the requests counted in its rolling day. Keys of PETSTORE_API_KEYS are configuration, not listed.',
    responses: { 200: { description: 'The keys, oldest first.', body: KeyListSchema } },
    async answer({ now }, keys) {
      const listed = await keys.list();
      return { status: 200, body: { keys: listed.map(({ key, usedToday }) => ({ key: keyView(key, now), usedToday: usedToday ?? null })) } };
    },
  }),
  keyOperation({
    operationId: 'showKey',
    method: 'GET',
    path: KEY_PATH,
    auth: 'apiKey',
    tags: TAGS,
    summary: 'Show a key and its quota',
    description: "Each rule's limit, used, remaining and reset, and any ban's end, read without counting.",
    params: KEY_ID,
    responses: { 200: { description: 'The key as it stands.', body: KeyStandingSchema }, 404: REFUSALS.not_found },
    answer: async ({ id, now }, keys) => answerOf(await keys.show(id), 200, (standing) => standingView(standing, now)),
  }),
  keyOperation({
    operationId: 'updateKey',
    method: 'PATCH',
    path: KEY_PATH,
    auth: 'apiKey',
    tags: TAGS,
    summary: 'Change a key',
    description: `Plan, limits, overrides of the plan's rules, role, label or expiry; what is not given stays. Every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}; what was counted stays counted.`,
    params: KEY_ID,
    body: { description: 'What changes.', schema: KeyChangesSchema },
    responses: { 200: { description: 'The key as changed.', body: KeyAnswerSchema }, 404: REFUSALS.not_found, 409: REFUSALS.revoked },
    async answer({ id, body, now }, keys) {
      const fields = fieldsOf(body, KeyChangesSchema);
      const updated = fields.ok ? await keys.update(id, fields.value, overridesOf(body)) : fields;
      return answerOf(updated, 200, (key) => ({ key: keyView(key, now) }));
    },
  }),
  keyOperation({
    operationId: 'unbanKey',
    method: 'POST',
    path: `${KEY_PATH}/unban`,
    auth: 'apiKey',
    tags: TAGS,
    summary: "Lift a key's ban",
    description: `Starts the key's quota over: counts, strikes and any ban. Every instance admits it ${WITHIN_CHANGES_REACH_INSTANCES}.`,
    params: KEY_ID,
    responses: { 200: { description: 'The key.', body: KeyAnswerSchema }, 404: REFUSALS.not_found },
    answer: async ({ id, now }, keys) => answerOf(await keys.unban(id), 200, (key) => ({ key: keyView(key, now) })),
  }),
  keyOperation({
    operationId: 'rollKey',
    method: 'POST',
    path: `${KEY_PATH}/roll`,
    auth: 'apiKey',
    tags: TAGS,
    summary: 'Roll a key',
    description:
      'A new secret for the same id, plan, usage and label. The previous secret keeps working until the grace ends; both count against one quota. A second roll ends the grace of the secret before.',
    params: KEY_ID,
    body: { description: `The grace; none (no body, or \`{}\`): ${DEFAULT_ROLL_GRACE}.`, schema: RollSchema, optional: true },
    responses: { 200: { description: 'The key and its new secret.', body: IssuedKeySchema }, 404: REFUSALS.not_found, 409: REFUSALS.revoked },
    async answer({ id, body, now }, keys) {
      const fields = fieldsOf(body, RollSchema);
      const rolled = fields.ok ? await keys.roll(id, fields.value['grace']) : fields;
      return answerOf(rolled, 200, ({ key, secret }) => ({ key: keyView(key, now), secret }));
    },
  }),
  keyOperation({
    operationId: 'revokeKey',
    method: 'POST',
    path: `${KEY_PATH}/revoke`,
    auth: 'apiKey',
    tags: TAGS,
    summary: 'Revoke a key',
    description: `Every instance refuses it ${WITHIN_CHANGES_REACH_INSTANCES}. Revoking a revoked key changes nothing and answers the same.`,
    params: KEY_ID,
    responses: { 200: { description: 'The key as revoked.', body: KeyAnswerSchema }, 404: REFUSALS.not_found },
    answer: async ({ id, now }, keys) => answerOf(await keys.revoke(id), 200, ({ key }) => ({ key: keyView(key, now) })),
  }),
  {
    operationId: 'getAdminOpenApiDocument',
    method: 'GET',
    path: '/openapi.json',
    auth: 'public',
    summary: 'This document',
    description: 'Readable without the admin token.',
    responses: {
      200: { description: 'The OpenAPI document of the admin API.', body: Type.Object({ openapi: Type.Literal('3.1.0'), info: Type.Object({}), paths: Type.Object({}) }) },
    },
    handler: (ctx, { openApiJson }) => sendJson(ctx, 200, openApiJson),
  },
];
