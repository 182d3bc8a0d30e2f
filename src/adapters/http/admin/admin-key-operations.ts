import Type, { type TSchema } from 'typebox';
import type { HandledOperation, OperationDeclaration } from '../contract/operation.js';
import type { HttpErrorCode } from '../wire/http-errors.js';
import { readJsonRequest } from '../wire/json-request.js';
import { hasBody, pathParameter, sendBody, sendError, sendJson, type RequestContext } from '../wire/request-context.js';
import { StoreUnavailableError } from '../../../domain/errors.js';
import { err, ok, type Result } from '../../../domain/result.js';
import type { Clock } from '../../../ports/clock.js';
import {
  CreditChangeSchema,
  CreditUsageSchema,
  IssuedKeySchema,
  KeyAnswerSchema,
  KeyChangesSchema,
  KeyCreditsSchema,
  KeyListSchema,
  KeyStandingSchema,
  NewKeySchema,
  OVERRIDES_FIELD,
  RollSchema,
} from './admin-key-schemas.js';
import type { KeyAdministration, KeyCreditsAnswer, KeyFieldText, KeyRefusal } from './key-administration.js';
import { keyView, standingView } from '../../key-view.js';
import { WITHIN_CHANGES_REACH_INSTANCES } from '../../change-propagation.js';
import { DEFAULT_ROLL_GRACE } from '../../../domain/keys/key-fields.js';
import { MAX_PAGE_LIMIT } from '../../../domain/paging/page-limits.js';
import { KEY_STATES, type KeyState } from '../../../ports/api-key-registry.js';

/** The groups of the admin document. */
export const ADMIN_TAGS = {
  Keys: 'Create, change, read, unban, reset, roll and revoke API keys.',
  Credits: "Read, set and top up keys' credit balances, and export the usage ledger.",
} as const;
export type AdminTagName = keyof typeof ADMIN_TAGS;

/** What the admin operations run on. */
export interface AdminServices {
  readonly keys: KeyAdministration;
  readonly clock: Clock;
  /** The served admin OpenAPI document, serialised once. */
  readonly openApiJson: string;
}

export type AdminOperation = HandledOperation<AdminServices, AdminTagName>;

/** What a verb answers: a status and its JSON, a status and text of another type (the CSV export), or a refusal. */
type VerbAnswer =
  | { readonly status: number; readonly body: unknown; readonly link?: string }
  | { readonly status: number; readonly text: string; readonly contentType: string }
  | { readonly refused: KeyRefusal; readonly id?: string };

interface VerbRequest {
  /** The `{id}` of the path; '' where the path has none. */
  readonly id: string;
  /** The JSON body of an operation that declares one; `{}` for an optional one left out. */
  readonly body: unknown;
  /** The query parameters the operation declares, each given once. */
  readonly query: KeyFieldText;
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
      : refused === 'not_banned'
        ? { code: 'key_not_banned', message: `${id} is not banned: nothing changed (POST /keys/${id}/reset forgets its counters).` }
        : refused === 'no_credits'
        ? { code: 'not_found', message: `The plan of ${id} carries no credits, so it has no balance: nothing read or changed (GET /keys/${id} shows its plan).` }
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

/**
 * The query of the request (the listener split it off the path), as the public API reads one: a
 * name the operation does not declare, or one given twice, is a 400.
 */
function queryOf(ctx: RequestContext, declared: readonly string[]): Result<KeyFieldText, string> {
  const url = ctx.req.url ?? '';
  const start = url.indexOf('?');
  const values: Record<string, string> = {};
  if (start === -1) return ok(values);
  for (const [name, value] of new URLSearchParams(url.slice(start + 1))) {
    if (!declared.includes(name)) return err(`Unknown query parameter: ${name}.`);
    if (name in values) return err(`The query parameter ${name} is given twice.`);
    values[name] = value;
  }
  return ok(values);
}

/** The verb as an operation: the query and body read as declared, every answer in JSON but CSV, a store that did not answer a 503 that says so. */
function keyOperation({ answer, ...declaration }: KeyVerb): AdminOperation {
  const { body: declared } = declaration;
  const queryNames = Object.keys(declaration.query ?? {});
  return {
    ...declaration,
    handler: async (ctx: RequestContext, { keys, clock }: AdminServices) => {
      const query = queryOf(ctx, queryNames);
      if (!query.ok) return sendError(ctx, 'invalid_request', query.error);
      let body: unknown = {};
      if (declared !== undefined && !(declared.optional === true && !hasBody(ctx.req))) {
        const request = await readJsonRequest(ctx);
        if (request === undefined) return;
        body = request.value;
      }
      const id = pathParameter(ctx, 'id');
      let answered: VerbAnswer;
      try {
        answered = await answer({ id, body, query: query.value, now: clock.now() }, keys);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        return sendError(ctx, 'service_unavailable', `${error.message}: nothing was changed, or the change is not known; read the key before trying again.`);
      }
      if ('text' in answered) return sendBody(ctx, answered.status, answered.contentType, answered.text);
      if ('status' in answered) return sendJson(ctx, answered.status, JSON.stringify(answered.body), answered.link === undefined ? undefined : ['link', answered.link]);
      const { code, message } = refusalOf(answered.id ?? id, answered.refused);
      sendError(ctx, code, message);
    },
  };
}

const REFUSALS = {
  not_found: { description: 'No key has this id.', errors: ['not_found'] },
  no_credits: { description: 'No key has this id, or its plan carries no credits.', errors: ['not_found'] },
  revoked: { description: 'The key is revoked, and a revoked key stays so: nothing changed.', errors: ['key_revoked'] },
  notBanned: { description: 'The key is not banned: nothing changed.', errors: ['key_not_banned'] },
} as const;

const KEY_PATH = '/keys/{id}';
const KEY_ID = { id: { description: 'The key id (`key_` and 16 hex digits).', schema: Type.String() } };
const TAGS: readonly AdminTagName[] = ['Keys'];
const CREDIT_TAGS: readonly AdminTagName[] = ['Credits'];

/** A key's credits on the wire: times as RFC 3339, a rule without refills refilled never (null). */
const creditsView = ({ key, rule, standing, before }: KeyCreditsAnswer, now: number) => ({
  key: keyView(key, now),
  rule,
  balance: standing.balance,
  period: new Date(standing.period).toISOString(),
  refillAt: standing.refillAt === undefined ? null : new Date(standing.refillAt).toISOString(),
  ...(before === undefined ? {} : { before }),
});

const CSV_TYPE = 'text/csv; charset=utf-8; header=present';
const JSON_TYPE = 'application/json; charset=utf-8';

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
    description:
      'The managed keys, oldest first, with the requests counted in their rolling day, paged like the public API\'s lists: the next page, if any, in the `Link` header (`rel="next"`), which keeps the filters. Keys of PETSTORE_API_KEYS are configuration, not listed.',
    query: {
      limit: { description: `Keys per page, 1 to ${MAX_PAGE_LIMIT}; absent: ${MAX_PAGE_LIMIT}.`, schema: Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT }) },
      cursor: { description: 'Where the page starts: the `cursor` of the previous page\'s `Link`, as given.', schema: Type.String() },
      plan: { description: 'Only the keys of this plan, by its name.', schema: Type.String() },
      status: { description: 'Only the keys in this state.', schema: Type.Unsafe<KeyState>({ type: 'string', enum: [...KEY_STATES] }) },
    },
    responses: { 200: { description: 'A page of keys, oldest first.', body: KeyListSchema, headers: { Link: 'NextLink' } } },
    async answer({ query, now }, keys) {
      const listed = await keys.list(query);
      if (!listed.ok) return { refused: listed.error };
      const { keys: page, next } = listed.value;
      return {
        status: 200,
        body: { keys: page.map(({ key, usedToday }) => ({ key: keyView(key, now), usedToday: usedToday ?? null })) },
        ...(next === undefined ? {} : { link: `</keys?${next}>; rel="next"` }),
      };
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
    description: `Lifts the key's ban, with its counts and strikes (the store keeps them together). Every instance admits it ${WITHIN_CHANGES_REACH_INSTANCES}. A key not banned is refused, unchanged: \`reset\` forgets its counts.`,
    params: KEY_ID,
    responses: { 200: { description: 'The key.', body: KeyAnswerSchema }, 404: REFUSALS.not_found, 409: REFUSALS.notBanned },
    answer: async ({ id, now }, keys) => answerOf(await keys.unban(id), 200, (key) => ({ key: keyView(key, now) })),
  }),
  keyOperation({
    operationId: 'resetKey',
    method: 'POST',
    path: `${KEY_PATH}/reset`,
    auth: 'apiKey',
    tags: TAGS,
    summary: "Start a key's quota over",
    description: `Forgets the key's counts, strikes and any ban, banned or not. Every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}.`,
    params: KEY_ID,
    responses: { 200: { description: 'The key.', body: KeyAnswerSchema }, 404: REFUSALS.not_found },
    answer: async ({ id, now }, keys) => answerOf(await keys.reset(id), 200, (key) => ({ key: keyView(key, now) })),
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
  keyOperation({
    operationId: 'exportCreditUsage',
    method: 'GET',
    path: '/keys/usage',
    auth: 'apiKey',
    tags: CREDIT_TAGS,
    summary: 'Export the credit usage ledger',
    description:
      "One row per key and period, as `petstore keys usage` writes them: what its requests spent, were refused, got back, and what refills and operators added. With `format=csv`, the same rows as `text/csv` (RFC 4180, a header line). Over a key's life: balance = initial + refilled + adjusted − spent + refunded.",
    query: {
      key: { description: "One key's rows, by its id; absent: every key's.", schema: Type.String() },
      from: { description: 'Periods starting from this month (YYYY-MM) or day (YYYY-MM-DD), UTC; absent: the first.', schema: Type.String() },
      to: { description: 'Periods starting up to the end of this month (YYYY-MM) or day (YYYY-MM-DD), UTC; absent: the last.', schema: Type.String() },
      format: { description: '`json` (default) or `csv`.', schema: Type.Unsafe<'json' | 'csv'>({ type: 'string', enum: ['json', 'csv'] }) },
    },
    responses: { 200: { description: 'The rows, by key then period.', body: CreditUsageSchema }, 404: REFUSALS.not_found },
    async answer({ query }, keys) {
      const exported = await keys.usage(query);
      if (!exported.ok) return { refused: exported.error, id: query['key'] ?? '' };
      const { format, body } = exported.value;
      return { status: 200, text: body, contentType: format === 'csv' ? CSV_TYPE : JSON_TYPE };
    },
  }),
  keyOperation({
    operationId: 'showKeyCredits',
    method: 'GET',
    path: `${KEY_PATH}/credits`,
    auth: 'apiKey',
    tags: CREDIT_TAGS,
    summary: "Show a key's credits",
    description: "Its plan's credit rule, its balance (the refill due included, writing nothing), the balance's period and the next refill.",
    params: KEY_ID,
    responses: { 200: { description: 'The key’s credits.', body: KeyCreditsSchema }, 404: REFUSALS.no_credits },
    answer: async ({ id, now }, keys) => answerOf(await keys.credits(id), 200, (credits) => creditsView(credits, now)),
  }),
  keyOperation({
    operationId: 'changeKeyCredits',
    method: 'POST',
    path: `${KEY_PATH}/credits`,
    auth: 'apiKey',
    tags: CREDIT_TAGS,
    summary: "Set or top up a key's credits",
    description:
      '`{"set": N}` sets the balance; `{"add": N}` adds N units (negative takes some away, never below 0). The period\'s refill, if due, comes first; the change is counted as `adjusted` in the usage ledger and logged.',
    params: KEY_ID,
    body: { description: 'Exactly one of set and add.', schema: CreditChangeSchema },
    responses: { 200: { description: 'The key’s credits after the change, and the balance before it.', body: KeyCreditsSchema }, 404: REFUSALS.no_credits },
    async answer({ id, body, now }, keys) {
      const fields = fieldsOf(body, CreditChangeSchema);
      const changed = fields.ok ? await keys.changeCredits(id, fields.value) : fields;
      return answerOf(changed, 200, (credits) => creditsView(credits, now));
    },
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
