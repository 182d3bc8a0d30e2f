import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { answerClientError } from './wire/parser-errors.js';
import { answerConnect } from './wire/connect-requests.js';
import { STANDALONE_ORIGINS, type ServerOrigin } from './contract/openapi-document.js';
import { createRequestHandler, type RequestHandlerDependencies, type RequestHandlerOptions } from './request-handler.js';

export interface HttpServerOptions extends RequestHandlerOptions {
  /** Slow clients cannot hold a connection: headers must arrive within this, the whole request within requestTimeoutMs. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** As for the handler, but by default STANDALONE_ORIGINS. */
  readonly serverOrigins?: readonly ServerOrigin[];
}

export type HttpServerDependencies = RequestHandlerDependencies;

export type PetStoreHttpServer = Server<typeof IncomingMessage, typeof ServerResponse>;

/** node:http's options for a listener held to these timeouts (the API's, and the admin listener's). */
export const listenerOptions = ({ headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs }: Pick<HttpServerOptions, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>): ServerOptions => ({
  headersTimeout: headersTimeoutMs,
  requestTimeout: requestTimeoutMs,
  keepAliveTimeout: keepAliveTimeoutMs,
  // Node checks the two timeouts above on this interval; its 30 s default would let them overrun.
  connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs),
  // A request without Host is refused by the handler, in the Error format, instead of by Node with an empty 400.
  requireHostHeader: false,
});

/** The standalone node:http server: timeouts, parser errors, `Expect` and CONNECT, around createRequestHandler. */
export function createHttpServer(deps: HttpServerDependencies, options: HttpServerOptions): PetStoreHttpServer {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, ...handlerOptions } = options;
  const handler = createRequestHandler(deps, { ...handlerOptions, serverOrigins: handlerOptions.serverOrigins ?? STANDALONE_ORIGINS });
  const server = createServer(listenerOptions({ headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs }), handler);
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect(handler));
  // Any Expect but 100-continue: Node would answer 417 with an empty body; the handler answers it, routed and counted like any refusal.
  server.on('checkExpectation', handler);
  return server;
}
