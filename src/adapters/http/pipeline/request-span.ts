import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { bindingRuleIndex } from '../../../domain/quota/binding-rule.js';
import type { Admission } from '../../../domain/quota/request-admission.js';
import type { RequestDescription, RequestSpan, SpanValue, Tracer } from '../../../ports/tracer.js';
import { MAX_LOGGED_TEXT } from '../wire/request-finished.js';
import type { RouteMatch } from './api-router.js';
import { loggedPath } from './request-target.js';

/**
 * A request's server span, named and described by OpenTelemetry's HTTP semantic conventions
 * (their stable attribute names), with this service's own attributes under `petstore.`: the
 * operation, the quota's verdict, the plan and the rule that bound it. Never a key nor its digest.
 */
export const SPAN_ATTRIBUTES = {
  operation: 'petstore.operation',
  verdict: 'petstore.quota.verdict',
  plan: 'petstore.plan',
  rule: 'petstore.quota.rule',
  shadowed: 'petstore.quota.shadowed',
} as const;

/** The methods the conventions name; any other is `_OTHER`, its name kept apart (a client chooses it). */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);
/** `host`, `[::1]` or either with `:port`: the conventions' server.address and server.port, read from Host. */
const HOST = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/;

/** server.address and server.port of a Host field, the last one read kept: a service is mostly called by one name. */
const serverOf = (() => {
  let lastHost: string | undefined;
  let last: { readonly address: string; readonly port: number | undefined } | undefined;
  return (host: string | undefined): typeof last => {
    if (host === lastHost) return last;
    const parsed = HOST.exec(host ?? '');
    lastHost = host;
    last = parsed === null || parsed[1] === '' ? undefined : { address: parsed[1]!, port: parsed[2] === undefined ? undefined : Number(parsed[2]) };
    return last;
  };
})();

/** Started once the request is routed, so that its name and `http.route` are known to the sampler; undefined when the request is left out. */
export const startRequestSpan = (tracer: Tracer, req: IncomingMessage, match: RouteMatch | null): RequestSpan | undefined =>
  tracer.startRequest(req.headers, () => describeRequest(req, match));

/** The span's name and the attributes the sampler sees: built only for a request offered to it. */
function describeRequest(req: IncomingMessage, match: RouteMatch | null): RequestDescription {
  const method = req.method ?? 'GET';
  const named = KNOWN_METHODS.has(method) ? method : '_OTHER';
  const attributes: Record<string, SpanValue> = {
    'http.request.method': named,
    'url.scheme': (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http',
    'url.path': loggedPath(req, MAX_LOGGED_TEXT),
    'network.protocol.version': req.httpVersion,
  };
  if (named !== method) attributes['http.request.method_original'] = method.slice(0, MAX_LOGGED_TEXT);
  const server = serverOf(req.headers.host);
  if (server !== undefined) {
    attributes['server.address'] = server.address;
    if (server.port !== undefined) attributes['server.port'] = server.port;
  }
  const userAgent = req.headers['user-agent'];
  if (userAgent !== undefined) attributes['user_agent.original'] = userAgent.slice(0, MAX_LOGGED_TEXT);
  if (match?.kind !== 'route') return { name: named, attributes };
  attributes['http.route'] = match.route.template;
  attributes[SPAN_ATTRIBUTES.operation] = match.route.operation.operationId;
  return { name: `${named} ${match.route.template}`, attributes };
}

/** The address the quotas count an anonymous caller by: a proxy's X-Forwarded-For as trusted, else the socket's. */
export const recordClient = (span: RequestSpan, address: string): void => span.set('client.address', address);

/** Who the quota took the request for, and what it decided. */
export function recordAdmission(span: RequestSpan, { decision, policy, costs, plan }: Admission, anonymous: string): void {
  span.set(SPAN_ATTRIBUTES.verdict, decision.verdict);
  span.set(SPAN_ATTRIBUTES.plan, plan?.name ?? anonymous);
  const binding = bindingRuleIndex(decision, policy.rules, costs);
  if (binding !== -1) span.set(SPAN_ATTRIBUTES.rule, policy.rules[binding]!.name);
  if (decision.shadowed !== undefined) span.set(SPAN_ATTRIBUTES.shadowed, decision.shadowed.map((index) => policy.rules[index]!.name));
}

/** Ended with the status sent (none when the connection closed first); a 5xx is an error, a 4xx the client's and not. */
export function endRequestSpan(span: RequestSpan, res: ServerResponse): void {
  if (!res.headersSent) return span.end();
  const status = res.statusCode;
  span.set('http.response.status_code', status);
  span.end(status >= 500 ? String(status) : undefined);
}
