import type { IncomingMessage } from 'node:http';

/**
 * The request target as the client sent it (`/petstore/v1/pets?limit=5`): what the handler
 * routes on, so that one `basePath` is both where it routes and what every link it writes
 * starts with.
 *
 * Why not `req.url` alone: express (like connect) strips the mount path from `req.url` before
 * calling a mounted handler (`app.use('/petstore', handler)` hands it `/v1/pets`) and keeps what
 * the client sent in `req.originalUrl`. Links (Location, `Link` rel=next and successor-version,
 * the served document's servers) must name the path the client used, and they are all built
 * once, when the handler is created. Routing on the full target lets the host give that path
 * once, as `basePath: '/petstore/v1'`, the same under node:http, express and fastify (which
 * never rewrites `request.raw.url`), instead of a second option for the mount or a prefix worked
 * out and concatenated per request. Reading a property allocates nothing.
 *
 * The cost: a middleware that rewrites `req.url` before the handler is not seen (the handler
 * answers what the client asked for), and a mount path with parameters (`/:tenant`) cannot be a
 * fixed base path.
 */
export function requestTarget(req: IncomingMessage): string {
  const original = (req as { readonly originalUrl?: unknown }).originalUrl;
  return typeof original === 'string' ? original : (req.url ?? '/');
}

/** The request target's path, its query left off (it may carry what a log must not keep), at most `max` characters: what an access line names. */
export function loggedPath(req: IncomingMessage, max: number): string {
  const target = requestTarget(req);
  const query = target.indexOf('?');
  return (query === -1 ? target : target.slice(0, query)).slice(0, max);
}
