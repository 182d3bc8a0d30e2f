import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { buildOpenApiDocument, STANDALONE_ORIGINS } from '../../src/adapters/http/contract/openapi-document.js';
import { PET_STORE_OPERATIONS } from '../../src/adapters/http/operations/index.js';

export interface ObservedResponse {
  readonly status: number;
  readonly headers: Headers | Readonly<Record<string, string | undefined>>;
  /** Parsed JSON when the response is JSON, otherwise its text ('' or undefined when empty). */
  readonly body: unknown;
}

type Json = Readonly<Record<string, unknown>>;

/** The document the server serves with its default configuration. */
export const openApiDocument = buildOpenApiDocument(PET_STORE_OPERATIONS, { deprecatedAt: new Date('2026-01-01T00:00:00Z'), origins: STANDALONE_ORIGINS });

const DOCUMENT_ID = 'https://petstore.test/openapi.json';
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** Every server URL ends in the same base path; documented paths are relative to it. */
const BASE_PATH = new URL(openApiDocument.servers[0]!.url, 'http://any.origin').pathname;

const ajv = new Ajv2020.default({ strict: true, allErrors: true });
ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
// RFC 3339 as the service writes it (Date.prototype.toISOString), and a real instant.
ajv.addFormat('date-time', {
  type: 'string',
  validate: (value: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) && !Number.isNaN(Date.parse(value)),
});
// The document is added whole, so `#/components/...` references resolve; its top-level fields are not schema keywords.
ajv.addVocabulary(['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components']);
ajv.addSchema(openApiDocument, DOCUMENT_ID);

const validators = new Map<string, ValidateFunction>();

/** A validator of the schema at `pointer` inside the document (`/components/schemas/NewPet`). */
export function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (validate === undefined) {
    const fragment = pointer.split('/').map(encodeURIComponent).join('/');
    validate = ajv.getSchema(`${DOCUMENT_ID}#${fragment}`);
    if (validate === undefined) throw new Error(`no schema at ${pointer} in the OpenAPI document`);
    validators.set(pointer, validate);
  }
  return validate;
}

const escapeToken = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');
const unescapeToken = (token: string): string => token.replaceAll('~1', '/').replaceAll('~0', '~');

function nodeAt(pointer: string): unknown {
  let node: unknown = openApiDocument;
  for (const token of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Json)[unescapeToken(token)];
  }
  return node;
}

/** Follows `$ref`s (OpenAPI response and header objects) to the object and the pointer where it lives. */
export function resolveInDocument(pointer: string): { readonly node: Json; readonly pointer: string } {
  const node = nodeAt(pointer);
  if (typeof node !== 'object' || node === null) throw new Error(`nothing at ${pointer} in the OpenAPI document`);
  const target = (node as Json)['$ref'];
  if (typeof target === 'string') {
    if (!target.startsWith('#/')) throw new Error(`unsupported $ref ${target}`);
    return resolveInDocument(target.slice(1));
  }
  return { node: node as Json, pointer };
}

interface Route {
  readonly description: string;
  /** Status code to the pointer of its response object. */
  readonly responses: ReadonlyMap<string, string>;
}

const genericResponses = (description: string, extra: Readonly<Record<string, string>>): Route => ({
  description,
  responses: new Map(
    Object.entries({
      '400': 'BadRequest',
      ...extra,
      '429': 'TooManyRequests',
      '500': 'InternalError',
      '503': 'ServiceUnavailable',
    }).map(([status, name]) => [status, `/components/responses/${name}`]),
  ),
});

const UNKNOWN_PATH = genericResponses('an unknown path', { '404': 'NotFound' });
const WRONG_METHOD = genericResponses('a known path with an undocumented method', { '405': 'MethodNotAllowed' });

const templates = Object.keys(openApiDocument.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** A full URL or an absolute path under the base path, or a documented path (template or concrete). */
function documentedPath(pathTemplateOrUrl: string): string | undefined {
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(pathTemplateOrUrl);
  const path = isUrl ? new URL(pathTemplateOrUrl).pathname : (pathTemplateOrUrl.split('?')[0] ?? '');
  if (path.startsWith(`${BASE_PATH}/`)) return path.slice(BASE_PATH.length);
  return isUrl ? undefined : path;
}

function routeOf(method: string, pathTemplateOrUrl: string): Route {
  const path = documentedPath(pathTemplateOrUrl);
  const template = path === undefined ? undefined : templates.find(({ pattern }) => pattern.test(path))?.template;
  if (template === undefined) return UNKNOWN_PATH;
  const lower = method.toLowerCase();
  const pathItem = (openApiDocument.paths as Readonly<Record<string, Json>>)[template] ?? {};
  if (!HTTP_METHODS.has(lower) || !(lower in pathItem)) return WRONG_METHOD;
  const operationPointer = `/paths/${escapeToken(template)}/${lower}`;
  const responses = nodeAt(`${operationPointer}/responses`) as Json;
  return {
    description: `${String((pathItem[lower] as Json)['operationId'])} (${method.toUpperCase()} ${template})`,
    responses: new Map(Object.keys(responses).map((status) => [status, `${operationPointer}/responses/${status}`])),
  };
}

function headerOf(headers: ObservedResponse['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

const describeErrors = (validate: ValidateFunction, dataVar: string): string =>
  ajv.errorsText(validate.errors, { separator: '; ', dataVar });

/** The problems of one response against its documented headers and body; empty when it matches. */
function problemsOf(responsePointer: string, response: ObservedResponse, headOnly: boolean): string[] {
  const problems: string[] = [];
  const { node: documented, pointer } = resolveInDocument(responsePointer);

  for (const name of Object.keys((documented['headers'] as Json | undefined) ?? {})) {
    const header = resolveInDocument(`${pointer}/headers/${escapeToken(name)}`);
    const value = headerOf(response.headers, name);
    if (value === undefined) {
      if (header.node['required'] === true) problems.push(`header ${name} is required but missing`);
      continue;
    }
    const schemaPointer = `${header.pointer}/schema`;
    const isInteger = (resolveInDocument(schemaPointer).node['type'] as unknown) === 'integer';
    if (isInteger && !/^-?[0-9]+$/.test(value)) {
      problems.push(`header ${name}: ${JSON.stringify(value)} is not an integer`);
      continue;
    }
    const validate = validatorAt(schemaPointer);
    if (!validate(isInteger ? Number(value) : value)) problems.push(`header ${describeErrors(validate, name)} (${JSON.stringify(value)})`);
  }

  // A HEAD answer has the headers of its GET and never a body, whatever the document says of content.
  const content = headOnly ? undefined : (documented['content'] as Json | undefined);
  if (content === undefined) {
    if (response.body !== undefined && response.body !== '') problems.push('a body was sent where none is documented');
    return problems;
  }
  const contentType = headerOf(response.headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (contentType === undefined || !(contentType in content)) {
    problems.push(`content type ${String(contentType)} is not documented (${Object.keys(content).join(', ')})`);
    return problems;
  }
  const validate = validatorAt(`${pointer}/content/${escapeToken(contentType)}/schema`);
  if (!validate(response.body)) problems.push(describeErrors(validate, 'body'));
  return problems;
}

/**
 * Throws unless the response is one the OpenAPI document allows for this method and path:
 * a documented status (the generic error responses for unknown paths and methods), every
 * required header present, every documented header and the JSON body valid against their schemas.
 */
export function assertMatchesOpenApi(method: string, pathTemplateOrUrl: string, response: ObservedResponse): void {
  const route = routeOf(method, pathTemplateOrUrl);
  const where = `${method.toUpperCase()} ${pathTemplateOrUrl} -> ${response.status}, as ${route.description}`;
  const responsePointer = route.responses.get(String(response.status));
  if (responsePointer === undefined) {
    throw new Error(`${where}: status ${response.status} is not documented (documented: ${[...route.responses.keys()].join(', ')})`);
  }
  const problems = problemsOf(responsePointer, response, method.toUpperCase() === 'HEAD');
  if (problems.length > 0) {
    const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
    throw new Error(`${where} does not match the OpenAPI document:\n- ${problems.join('\n- ')}\nbody: ${body?.slice(0, 500)}`);
  }
}
