import { pathOf, type ApiRouter } from './api-router.js';
import { sendError, type RequestContext } from '../wire/request-context.js';

/**
 * The answer to a request no route takes, on either API: 404 at a path none serves, 405 with
 * `Allow` at a path served with other methods.
 */
export function refuseUnrouted(ctx: RequestContext, router: Pick<ApiRouter, 'allowedMethods'>, url: string): void {
  const allowed = router.allowedMethods(url);
  if (allowed.length === 0) return sendError(ctx, 'not_found', `No resource at ${pathOf(url)}.`);
  sendError(ctx, 'method_not_allowed', `${ctx.req.method} is not allowed here; use ${allowed.join(' or ')}.`, ['allow', allowed.join(', ')]);
}
