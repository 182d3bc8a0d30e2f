import type { Clock } from '../../ports/clock.js';
import { ADMIN_API_OPERATIONS, type AdminServices } from './admin/admin-key-operations.js';
import { adminOpenApiDocument } from './admin/admin-openapi.js';
import type { KeyAdministration } from './admin/key-administration.js';
import { createApiRouter } from './pipeline/api-router.js';
import { bearerMatcher } from './pipeline/bearer-token.js';
import { credentialHeadersProblem } from './pipeline/credential-headers.js';
import { refuseUnrouted } from './pipeline/unrouted.js';
import { sendError, type RequestContext } from './wire/request-context.js';

export interface AdminKeyHandlerOptions {
  /** PETSTORE_ADMIN_TOKEN. */
  readonly token: string;
  /** What the token must be, as the document's security scheme states it. */
  readonly tokenRule: string;
  readonly keys: KeyAdministration;
  readonly clock: Clock;
}

/**
 * Answers a request of the admin listener if its path is the key API's (the listener has already
 * split off the query); false: not its path, the listener's own (/metrics, /healthz...).
 */
export type AdminKeyApi = (ctx: RequestContext, method: string, path: string) => false | Promise<void>;

const NO_STORE = ['cache-control', 'no-store'];
const CHALLENGE = ['www-authenticate', 'Bearer realm="petstore-admin"'];
const KEYS_PATH = '/keys';

/**
 * The key verbs over HTTP, on the admin listener, by the public API's stack: the declared
 * operations (admin/admin-key-operations.ts) routed by its router, refused 404 and 405 (with
 * Allow) as it refuses them, documented by its builder at /openapi.json. Every path under /keys
 * is behind the admin token, checked before any route is told of or any body read; every answer
 * is `Cache-Control: no-store`.
 */
export function createAdminKeyHandler({ token, tokenRule, keys, clock }: AdminKeyHandlerOptions): AdminKeyApi {
  const router = createApiRouter(ADMIN_API_OPERATIONS, { basePath: '' });
  const services: AdminServices = { keys, clock, openApiJson: JSON.stringify(adminOpenApiDocument(tokenRule)) };
  const presentsToken = bearerMatcher(token);

  const answer = (ctx: RequestContext, method: string, path: string, keyPath: boolean): void | Promise<void> => {
    if (keyPath) {
      // As on the API: of repeated Authorization headers Node keeps one, and which token was meant cannot be known.
      const headersProblem = credentialHeadersProblem(ctx.req);
      if (headersProblem !== undefined) return sendError(ctx, 'invalid_request', headersProblem);
      if (!presentsToken(ctx.req.headers.authorization)) return sendError(ctx, 'unauthorized', 'The admin token is required: Authorization: Bearer <PETSTORE_ADMIN_TOKEN>.', CHALLENGE);
    }
    const match = router.find(method, path);
    if (match === null) return refuseUnrouted(ctx, router, path);
    // A bad escape in an id names no key: not found, as any id that is not a key's.
    if (match.kind === 'bad_url') return sendError(ctx, 'not_found');
    ctx.params = match.params;
    const id = match.params['id'];
    // `/keys/`, `/keys/%00` name no key: a 404 without asking a store (PostgreSQL refuses a NUL in text).
    if (id !== undefined && !keys.isKeyId(id)) return sendError(ctx, 'not_found');
    return match.route.operation.handler(ctx, services);
  };

  return (ctx, method, path) => {
    const keyPath = path === KEYS_PATH || path.startsWith(`${KEYS_PATH}/`);
    if (!keyPath && router.allowedMethods(path).length === 0) return false;
    for (const field of NO_STORE) ctx.headers.push(field);
    return Promise.resolve(answer(ctx, method, path, keyPath));
  };
}
