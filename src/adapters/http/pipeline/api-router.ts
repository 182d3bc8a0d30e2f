import FindMyWay, { type HTTPVersion } from 'find-my-way';
import { DEFAULT_BASE_PATH } from '../contract/base-path.js';
import { deprecationHeaders } from '../wire/deprecation-headers.js';
import type { Operation } from '../contract/operation.js';
import type { OperationDeclaration } from '../contract/operation-declaration.js';
import { checkOperations } from '../contract/operation-table.js';

/** An operation as the pipeline needs it per request, everything derived once at start. */
export interface CompiledRoute<Op extends OperationDeclaration<string> = Operation> {
  readonly operation: Op;
  /** The route as find-my-way has it, base path included: `/v1/pets/:petId` (a span's `http.route`). */
  readonly template: string;
  /** Query parameters the operation understands; any other is a 400 rather than silently ignored. */
  readonly queryNames: readonly string[];
  /** Headers of every answer of this route, its 429s included (getPet's deprecation), as a header list. */
  readonly headers: readonly string[];
}

export type RouteMatch<Op extends OperationDeclaration<string> = Operation> =
  | {
      readonly kind: 'route';
      readonly route: CompiledRoute<Op>;
      readonly params: Readonly<Record<string, string | undefined>>;
      readonly query: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'bad_url' };

/** The routes of one API (the public one, or the admin one), whatever its operations run on. */
export interface ApiRouter<Op extends OperationDeclaration<string> = Operation> {
  /** The route of a request, a malformed URL, or null when no route has this method and path. */
  find(method: string, url: string): RouteMatch<Op> | null;
  /** The methods the path answers to (empty: an unknown path), for 405's Allow and CORS. */
  allowedMethods(url: string): readonly string[];
}

export interface ApiRouterOptions {
  /** When deprecated operations were deprecated; needed only if one is. */
  readonly deprecatedAt?: Date;
  /** Prefix of every route (as the request target carries it) and of the successor links. Default `/v1`. */
  readonly basePath?: string;
}

const toRouterPath = (basePath: string, template: string): string => basePath + template.replace(/\{([^}]+)\}/g, ':$1');

export const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

const BAD_URL = { kind: 'bad_url' } as const;
const unusedHandler = (): void => {};

/** Request targets whose match is remembered, per method; past it all are dropped and looked up again as they come. */
const MATCHES_KEPT = 1_024;
/** Longer targets are looked up every time, so what is remembered stays under a few hundred KB. */
const LONGEST_KEPT_TARGET = 256;

/**
 * `find` remembering its answers: the routes never change once built, so a target's match
 * does too, and a client repeating a request (a page, a pet) skips find-my-way's walk and
 * query parsing for a map lookup. A match's params and query are shared by the requests of
 * that target, read only (`RouteMatch` and RequestContext type them so).
 */
const rememberingFind = <Match>(find: (method: string, url: string) => Match | null): ((method: string, url: string) => Match | null) => {
  const byMethod = new Map<string, Map<string, Match | null>>();
  let kept = 0;
  return (method, url) => {
    if (url.length > LONGEST_KEPT_TARGET) return find(method, url);
    let matches = byMethod.get(method);
    if (matches === undefined) {
      matches = new Map();
      byMethod.set(method, matches);
    }
    let match = matches.get(url);
    if (match === undefined) {
      if (kept === MATCHES_KEPT) {
        for (const other of byMethod.values()) other.clear();
        kept = 0;
      }
      match = find(method, url);
      matches.set(url, match);
      kept++;
    }
    return match;
  };
};

/** A deprecated operation's Deprecation, Sunset and successor link; none for any other. */
function routeHeaders(operation: OperationDeclaration<string>, basePath: string, deprecatedAt: Date | undefined): readonly string[] {
  const { deprecation } = operation;
  if (deprecation === undefined) return [];
  if (deprecatedAt === undefined) throw new Error(`${operation.operationId} is deprecated: the router needs deprecatedAt`);
  return deprecationHeaders(deprecatedAt, deprecation.sunsetAt, basePath + deprecation.successor);
}

/** find-my-way over the declared operations, HEAD wherever GET; checks the table first. */
export function createApiRouter<Op extends OperationDeclaration<string>>(operations: readonly Op[], options: ApiRouterOptions): ApiRouter<Op> {
  checkOperations(operations);
  const basePath = options.basePath ?? DEFAULT_BASE_PATH;
  const router = FindMyWay<HTTPVersion.V1>({
    ignoreTrailingSlash: false,
    // An id of any length must reach its handler, which answers 400; a longer parameter would
    // otherwise not match and be a 404. Node's header size limit bounds the URL anyway.
    maxParamLength: Number.MAX_SAFE_INTEGER,
    onBadUrl: unusedHandler,
  });
  const methods = new Set<string>();
  for (const operation of operations) {
    const path = toRouterPath(basePath, operation.path);
    const route: CompiledRoute<Op> = {
      operation,
      template: path,
      queryNames: Object.keys(operation.query ?? {}),
      headers: routeHeaders(operation, basePath, options.deprecatedAt),
    };
    router.on(operation.method, path, unusedHandler, route);
    methods.add(operation.method);
    if (operation.method === 'GET') {
      router.on('HEAD', path, unusedHandler, route);
      methods.add('HEAD');
    }
  }
  const routedMethods = [...methods].sort();

  return {
    find: rememberingFind((method, url): RouteMatch<Op> | null => {
      const found = router.find(method as HTTPVersion.V1 extends never ? never : 'GET', url);
      if (found === null) return null;
      const route = found.store as CompiledRoute<Op> | null;
      if (route === null) return BAD_URL;
      return { kind: 'route', route, params: found.params, query: found.searchParams };
    }),
    allowedMethods(url) {
      const path = pathOf(url);
      return routedMethods.filter((method) => router.find(method as 'GET', path) !== null);
    },
  };
}
